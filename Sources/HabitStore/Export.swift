import Foundation
import HabitCore

/// The canonical export: every existing habit with its fields and recorded days, sorted,
/// without timestamps, so the same state on the same day always gives the same bytes.
public enum Export {
    public static let format = "habitto-export"
    public static let version = 1

    /// The export document for a state on `today`. A day's values are written only where
    /// local input could record them (`Edits.isRecordable`), so every export imports again;
    /// what a merge kept outside those days (before the start date, on or after the archive
    /// date, a check-in on a day after `today`) counts for nothing and is left out.
    public static func document(_ state: HabitState, today: LocalDay) -> JSON {
        let habits = state.habits.sorted { $0.id < $1.id }.map { habit -> JSON in
            let days = (state.entries[habit.id]?.days ?? [:]).sorted { $0.key < $1.key }.compactMap { day, rec -> JSON? in
                let values = Edits.isRecordable(habit, day, today: today)
                let progress = values ? habit.shown(progress: rec.progress) : 0
                let rating = values ? rec.rating : nil
                let note = values ? rec.note : nil
                let skipped = rec.isSkipped && Edits.isRecordable(habit, day, today: today, skip: true)
                guard progress > 0 || skipped || rating != nil || note != nil else { return nil }
                return .object(["date": .string(day.description), "progress": .amount(progress),
                                "skipped": .bool(skipped), "difficulty": .optional(rating), "note": .optional(note)])
            }
            var o = fields(habit)
            o["days"] = .array(days)
            return .object(o)
        }
        return .object(["format": .string(format), "version": .int(version), "habits": .array(habits)])
    }

    /// A habit's fields as JSON members.
    public static func fields(_ habit: Habit) -> [String: JSON] {
        let f = habit.fields
        return [
            "id": .string(habit.id.rawValue), "name": .string(f.name), "icon": .optional(f.icon),
            "color": .optional(f.color), "kind": .string(f.kind.rawValue), "goal": .amount(f.goal),
            "unit": .optional(f.unit), "schedule": .string(f.schedule.description),
            "startDate": .string(f.startDate.description),
            "archivedFrom": .optional(f.archivedFrom?.description), "notes": .optional(f.notes),
            "group": .optional(f.group),
        ]
    }
}
