import Foundation
import HabitCore

/// The canonical export: every existing habit with its fields and recorded days, sorted,
/// without timestamps, so the same state always gives the same bytes.
public enum Export {
    public static let format = "habitto-export"
    public static let version = 1

    /// The export document for a state.
    public static func document(_ state: HabitState) -> JSON {
        let habits = state.habits.sorted { $0.id < $1.id }.map { habit -> JSON in
            let days = (state.entries[habit.id]?.days ?? [:]).sorted { $0.key < $1.key }.compactMap { day, rec -> JSON? in
                guard rec.progress > 0 || rec.isSkipped || rec.rating != nil || rec.note != nil else { return nil }
                return .object(["date": .string(day.description), "progress": .int(rec.progress),
                                "skipped": .bool(rec.isSkipped), "difficulty": .optional(rec.rating),
                                "note": .optional(rec.note)])
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
            "color": .optional(f.color), "kind": .string(f.kind.rawValue), "goal": .int(f.goal),
            "unit": .optional(f.unit), "schedule": .string(f.schedule.description),
            "startDate": .string(f.startDate.description),
            "archivedFrom": .optional(f.archivedFrom?.description), "notes": .optional(f.notes),
            "group": .optional(f.group),
        ]
    }
}
