import Foundation
import HabitCore

// MARK: Form

func formBox(_ b: inout ScreenBuffer, _ state: AppState, _ form: HabitForm) {
    let fields = HabitForm.Field.allCases
    let w = min(state.width - 2, 76)
    // Each field with its hint under it when there is room; else a line a field, with the
    // focused field's hint under it, or at the bottom when even that does not fit.
    let full = fields.count * 2 + 4, oneHint = fields.count + 5
    let h = full <= state.height - 2 ? full : min(state.height - 2, oneHint)
    let x0 = (state.width - w) / 2, y0 = max(0, (state.height - h) / 2 - 1)
    for y in y0..<(y0 + h) {
        b.put(String(repeating: " ", count: w), x: x0, y: y, role: .normal)
    }
    let border = state.glyphs.showsIcons ? ("┌", "┐", "└", "┘", "─", "│") : ("+", "+", "+", "+", "-", "|")
    b.put(border.0 + String(repeating: border.4, count: w - 2) + border.1, x: x0, y: y0, role: .accent)
    b.put(border.2 + String(repeating: border.4, count: w - 2) + border.3, x: x0, y: y0 + h - 1, role: .accent)
    for y in (y0 + 1)..<(y0 + h - 1) {
        b.put(border.5, x: x0, y: y, role: .accent)
        b.put(border.5, x: x0 + w - 1, y: y, role: .accent)
    }
    b.put(form.editing == nil ? " New habit " : " Edit habit ", x: x0 + 2, y: y0, role: .title)
    let compact = h < full
    let focusHint = compact && h >= oneHint
    // A box too short for every field scrolls to keep the focused one in it.
    let rows = h - 3 - (focusHint ? 1 : 0)
    let firstField = max(0, min(form.focus.rawValue - rows + 1, fields.count - rows))
    var y = y0 + 1
    for field in fields.dropFirst(firstField) {
        guard y < y0 + h - 2 else { break }
        let focused = field == form.focus
        let label = TextWidth.fit(form.label(field), 15)
        b.put(focused ? state.glyphs.selected : " ", x: x0 + 1, y: y, role: .accent)
        b.put(label, x: x0 + 3, y: y, role: focused ? .header : .dim)
        // The focused field shows its end, where typing happens; line breaks show as " / ".
        let value = focused && field != .kind ? tail(oneLine(form.text(field)), w - 22) + "_" : oneLine(form.text(field))
        b.put(value, x: x0 + 19, y: y, role: focused ? .selection : .normal, limit: w - 21)
        let problem = form.problem(field, in: state.habits)
        let note = problem ?? (focused ? field.hint : "")
        if !compact || (focusHint && focused) {
            y += 1
            b.put(note, x: x0 + 19, y: y, role: problem == nil ? .dim : .statusError, limit: w - 21)
        } else if let problem {
            b.put(" " + problem, x: x0 + 19 + TextWidth.of(value), y: y, role: .statusError,
                  limit: max(0, w - 21 - TextWidth.of(value)))
        }
        y += 1
    }
    if let error = form.formError {
        b.put(error, x: x0 + 2, y: y0 + h - 2, role: .statusError, limit: w - 4)
    } else if compact && !focusHint {
        // No room for a hint under each field: the focused field's goes at the bottom.
        b.put(form.focus.hint, x: x0 + 2, y: y0 + h - 2, role: .dim, limit: w - 4)
    } else {
        b.put("enter saves · tab next field · esc cancels", x: x0 + 2, y: y0 + h - 2, role: .dim, limit: w - 4)
    }
}
