/// One record of a CSV file and the line it starts on (1-based).
struct CSVRecord: Equatable, Sendable {
    let line: Int
    let fields: [String]
}

/// An RFC 4180 CSV reader: fields separated by commas, records by CRLF or LF, fields in
/// double quotes may hold commas, line breaks and doubled quotes; the last record may end
/// without a line break. A UTF-8 byte order mark is ignored and blank lines are skipped.
enum CSV {
    private static let quote = UInt8(ascii: "\"")
    private static let comma = UInt8(ascii: ",")
    private static let cr = UInt8(ascii: "\r")
    private static let lf = UInt8(ascii: "\n")

    /// The records of `bytes`; throws an `ImportError` naming `file:line` for a quote that
    /// never closes or text where the format allows none.
    static func parse(_ bytes: [UInt8], file: String) throws -> [CSVRecord] {
        var parser = Parser(file: file)
        var i = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        while i < bytes.count {
            i = try parser.consume(bytes, at: i)
        }
        return try parser.finish()
    }

    /// The state of one pass over the bytes.
    private struct Parser {
        let file: String
        var records: [CSVRecord] = []
        var fields: [String] = []
        var field: [UInt8] = []
        var line = 1
        var recordLine = 1
        var inQuotes = false
        var quoteLine = 0
        /// The current field began with a quote (and, outside quotes, has closed).
        var quoted = false
        var recordHadQuote = false

        init(file: String) { self.file = file }

        /// Reads the byte at `i` (two for `""` or CRLF) and returns the next index.
        mutating func consume(_ bytes: [UInt8], at i: Int) throws -> Int {
            let b = bytes[i]
            let next: UInt8? = i + 1 < bytes.count ? bytes[i + 1] : nil
            if inQuotes {
                if b == CSV.quote {
                    if next == CSV.quote { field.append(b); return i + 2 }
                    inQuotes = false
                    return i + 1
                }
                if b == CSV.lf { line += 1 }
                field.append(b)
                return i + 1
            }
            switch b {
            case CSV.comma:
                endField()
                return i + 1
            case CSV.lf:
                endRecord()
                return i + 1
            case CSV.cr:
                endRecord()
                return next == CSV.lf ? i + 2 : i + 1
            case CSV.quote:
                guard field.isEmpty, !quoted else {
                    throw ImportError("\(file):\(line): a quote inside a field that does not start with one; a field holding quotes must be wrapped in quotes with each quote doubled (\"\"). Fix the line or export again")
                }
                inQuotes = true; quoted = true; recordHadQuote = true; quoteLine = line
                return i + 1
            default:
                if quoted {
                    throw ImportError("\(file):\(line): text after the closing quote of a field; a quoted field must end at a comma or the end of the line. Fix the line or export again")
                }
                field.append(b)
                return i + 1
            }
        }

        /// Ends the current field.
        mutating func endField() {
            fields.append(String(decoding: field, as: UTF8.self))
            field = []
            quoted = false
        }

        /// Ends the current record at a line break; blank lines make no record.
        mutating func endRecord() {
            endField()
            let blank = fields.count == 1 && fields[0].isEmpty && !recordHadQuote
            if !blank { records.append(CSVRecord(line: recordLine, fields: fields)) }
            fields = []
            recordHadQuote = false
            line += 1
            recordLine = line
        }

        /// Ends the last record and returns them all.
        mutating func finish() throws -> [CSVRecord] {
            if inQuotes {
                throw ImportError("\(file):\(quoteLine): a quoted field starts on this line and never ends; the file is cut short or a closing quote is missing. Export again or add the quote")
            }
            if !field.isEmpty || !fields.isEmpty || recordHadQuote { endRecord() }
            return records
        }
    }
}

/// A CSV file with a header line: columns found by name (case and surrounding spaces do
/// not matter), rows as records.
struct CSVTable {
    let file: String
    let headerLine: Int
    let rows: [CSVRecord]
    private let columns: [String: Int]

    /// Parses `bytes` and checks that every column in `required` is present; throws an
    /// `ImportError` naming `file:line` otherwise.
    init(_ bytes: [UInt8], file: String, required: [String], expected: String) throws {
        let records = try CSV.parse(bytes, file: file)
        guard let header = records.first else {
            throw ImportError("\(file):1: the file is empty; expected a header line (\(expected)). Export again")
        }
        var columns: [String: Int] = [:]
        for (index, name) in header.fields.enumerated() {
            let key = CSVTable.key(name)
            if columns[key] == nil { columns[key] = index }
        }
        for name in required where columns[CSVTable.key(name)] == nil {
            throw ImportError("\(file):\(header.line): the header has no '\(name)' column; expected \(expected). Is this the right file? Export again")
        }
        self.file = file
        self.headerLine = header.line
        self.rows = Array(records.dropFirst())
        self.columns = columns
    }

    /// Whether the header has the column.
    func has(_ column: String) -> Bool { columns[CSVTable.key(column)] != nil }

    /// The row's value in the column, trimmed of surrounding spaces; empty when the row is
    /// short or the column is absent.
    func value(_ row: CSVRecord, _ column: String) -> String {
        ImportText.trimmed(raw(row, column))
    }

    /// The row's value in the column as written.
    func raw(_ row: CSVRecord, _ column: String) -> String {
        guard let index = columns[CSVTable.key(column)], index < row.fields.count else { return "" }
        return row.fields[index]
    }

    /// A header name as columns are looked up.
    private static func key(_ name: String) -> String { ImportText.trimmed(name).lowercased() }
}
