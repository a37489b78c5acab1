import FoundationEssentials

/// Fractional-index sort keys: the order of habits as one last-writer-wins field per habit.
///
/// A key is a base-62 fraction written with `digits` (0-9, A-Z, a-z, in byte order) that
/// does not end in the lowest digit; keys compare as plain byte strings. Between any two
/// different keys, before any key and after any key there is always another key, so a move
/// writes the moved habit's key alone. Keys are at most `maxLength` characters: when a gap
/// has been split so often that no key that short fits, the keys around it are spread out
/// again (`Edits.move` does that, in the same command).
public enum OrderKey {
    /// The alphabet, lowest first.
    public static let digits: [UInt8] = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8)
    /// The longest key accepted anywhere (decoding refuses longer ones).
    public static let maxLength = 32

    private static let values: [Int8] = {
        var t = [Int8](repeating: -1, count: 256)
        for (i, d) in digits.enumerated() { t[Int(d)] = Int8(i) }
        return t
    }()

    /// True for 1…`maxLength` characters of `digits` not ending in the lowest digit.
    public static func isValid(_ key: String) -> Bool {
        let u = key.utf8
        guard !u.isEmpty, u.count <= maxLength, u.last != digits[0] else { return false }
        return u.allSatisfy { values[Int($0)] >= 0 }
    }

    /// True when `a` sorts before `b`.
    public static func less(_ a: String, _ b: String) -> Bool { a.utf8.lexicographicallyPrecedes(b.utf8) }

    /// A key strictly between `a` and `b` (nil bounds: before everything, after everything).
    /// Nil when `a` is not before `b`, a bound is not a valid key, or no key of at most
    /// `maxLength` characters lies between them.
    public static func between(_ a: String?, _ b: String?) -> String? {
        if let a, !isValid(a) { return nil }
        if let b, !isValid(b) { return nil }
        if let a, let b, !less(a, b) { return nil }
        let da = a.map { $0.utf8.map { Int(values[Int($0)]) } } ?? []
        let db = b.map { $0.utf8.map { Int(values[Int($0)]) } }
        let mid = midpoint(da[...], db?[...])
        guard mid.count <= maxLength else { return nil }
        return String(decoding: mid.map { digits[$0] }, as: UTF8.self)
    }

    /// `count` keys in ascending order strictly between `a` and `b`, as short as they can be
    /// (split in halves); nil when they do not fit (see `between`).
    public static func spread(_ count: Int, between a: String?, _ b: String?) -> [String]? {
        guard count > 0 else { return [] }
        guard let mid = between(a, b) else { return nil }
        let left = (count - 1) / 2
        guard let l = spread(left, between: a, mid), let r = spread(count - 1 - left, between: mid, b) else { return nil }
        return l + [mid] + r
    }

    /// The digits of a fraction strictly between `a` and `b` (nil: 1), with `a` < `b` and
    /// neither ending in zero. Never ends in zero.
    private static func midpoint(_ a: ArraySlice<Int>, _ b: ArraySlice<Int>?) -> [Int] {
        if let b {
            var n = 0
            while n < b.count, (n < a.count ? a[a.startIndex + n] : 0) == b[b.startIndex + n] { n += 1 }
            if n > 0 { return Array(b.prefix(n)) + midpoint(a.dropFirst(n), b.dropFirst(n)) }
        }
        let low = a.first ?? 0
        let high = b?.first ?? digits.count
        if high - low > 1 { return [(low + high + 1) / 2] }
        if let b, b.count > 1 { return [b[b.startIndex]] }
        return [low] + midpoint(a.dropFirst(), nil)
    }
}

/// Where `habitto move` and the UI's move keys put a habit.
public enum MoveTarget: Hashable, Sendable {
    case before(HabitID)
    case after(HabitID)
    case top
    case bottom
}

extension HabitState {
    /// The order of habits: habits with an order key first, by key; then habits never moved,
    /// by creation; ties (equal keys written on two devices at once) by creation, then id.
    /// Every device that has seen the same operations gives the same order.
    static func ordered(_ a: (key: String?, created: Stamp, id: HabitID), _ b: (key: String?, created: Stamp, id: HabitID)) -> Bool {
        switch (a.key, b.key) {
        case (let x?, let y?) where x != y: return OrderKey.less(x, y)
        case (.some, nil): return true
        case (nil, .some): return false
        default: return a.created != b.created ? a.created < b.created : a.id < b.id
        }
    }
}

extension HabitState {
    /// Every existing habit (archived included) in the order every listing shows them: the
    /// habits without a group first, then each group's habits, groups in the order of their
    /// first habit; within each, the habit order (`habits`). `list`, `graph`, the today
    /// screen, the week grid, the overview and catching up all show habits in this order
    /// (or in this order with some left out).
    public var listed: [Habit] { HabitState.listing(habits) }

    /// `habits` (in the habit order) put in the listing order (see `listed`).
    public static func listing(_ habits: [Habit]) -> [Habit] {
        var groups: [String] = []
        var members: [String: [Habit]] = [:]
        var out: [Habit] = []
        for h in habits {
            guard let g = h.fields.group else { out.append(h); continue }
            if members[g] == nil { groups.append(g) }
            members[g, default: []].append(h)
        }
        for g in groups { out += members[g]! }
        return out
    }
}

extension Edits {
    /// The changes that move `id` to `target` in the order of all habits (archived ones
    /// included), as one command: the moved habit's new key first, then keys for the habits
    /// before it that had none (a habit without a key follows every habit with one). When a
    /// gap has no room left, the keys of the habits up to the moved one are spread out again.
    /// Empty when the habit is where `target` puts it already. Throws `CoreError.movedRelativeToItself`
    /// for a move relative to the habit itself.
    public static func move(_ id: HabitID, to target: MoveTarget, in state: HabitState) throws -> [Change] {
        let habits = state.habits
        let order = habits.map(\.id)
        guard let from = order.firstIndex(of: id) else { throw CoreError.noSuchHabit }
        var d = order
        d.remove(at: from)
        let k: Int
        switch target {
        case .top: k = 0
        case .bottom: k = d.count
        case .before(let other), .after(let other):
            guard other != id else {
                throw CoreError.movedRelativeToItself(habit: habits[from].name)
            }
            guard let i = d.firstIndex(of: other) else { throw CoreError.noSuchHabit }
            if case .after = target { k = i + 1 } else { k = i }
        }
        d.insert(id, at: k)
        if d == order { return [] }
        let byID = Dictionary(uniqueKeysWithValues: habits.map { ($0.id, $0) })
        var keys = d.map { $0 == id ? nil : byID[$0]!.fields.position }
        // Everything up to the moved habit, and every habit that has a key, keeps or gets one.
        let prefix = max(k + 1, (keys.lastIndex { $0 != nil } ?? -1) + 1)
        var i = 0
        var fits = true
        while i < prefix && fits {
            guard keys[i] == nil else { i += 1; continue }
            var j = i
            while j + 1 < prefix && keys[j + 1] == nil { j += 1 }
            if let spread = OrderKey.spread(j - i + 1, between: i > 0 ? keys[i - 1] : nil, j + 1 < prefix ? keys[j + 1] : nil) {
                for (n, key) in spread.enumerated() { keys[i + n] = key }
            } else {
                fits = false
            }
            i = j + 1
        }
        if !fits {
            guard let spread = OrderKey.spread(prefix, between: nil, nil) else {
                throw CoreError.tooManyToOrder
            }
            for n in 0..<prefix { keys[n] = spread[n] }
        }
        var changes: [Change] = []
        for (n, h) in d.enumerated() where n < prefix && keys[n] != byID[h]!.fields.position {
            let change = Change.set(h, .position(keys[n]))
            if h == id { changes.insert(change, at: 0) } else { changes.append(change) }
        }
        return changes
    }
}
