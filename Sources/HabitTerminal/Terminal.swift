import HabitTUI
