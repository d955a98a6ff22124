import Foundation

/// A five-field cron expression (`minute hour day-of-month month day-of-week`) with `*`, lists, ranges and steps,
/// evaluated in a given time zone. As in cron, when both day fields are restricted a day matching either one matches.
public struct CronSchedule: Sendable, Equatable, CustomStringConvertible {
    public let description: String
    let minutes: Set<Int>
    let hours: Set<Int>
    let days: Set<Int>
    let months: Set<Int>
    let weekdays: Set<Int>
    let daysRestricted: Bool
    let weekdaysRestricted: Bool

    /// Parses `expression`; throws a message naming the bad field.
    public init(_ expression: String) throws(CronError) {
        let fields = expression.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        guard fields.count == 5 else {
            throw CronError(
                message:
                    "'\(expression)' has \(fields.count) fields; a cron expression has 5 (minute hour day month weekday)"
            )
        }
        description = expression
        minutes = try Self.field(fields[0], name: "minute", range: 0...59)
        hours = try Self.field(fields[1], name: "hour", range: 0...23)
        days = try Self.field(fields[2], name: "day of month", range: 1...31)
        months = try Self.field(fields[3], name: "month", range: 1...12)
        // 0 and 7 both mean Sunday.
        weekdays = Set(try Self.field(fields[4], name: "day of week", range: 0...7).map { $0 % 7 })
        daysRestricted = fields[2] != "*"
        weekdaysRestricted = fields[4] != "*"
    }

    static func field(_ text: String, name: String, range: ClosedRange<Int>) throws(CronError) -> Set<Int> {
        var out = Set<Int>()
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let pieces = part.split(separator: "/", omittingEmptySubsequences: false)
            guard pieces.count <= 2 else { throw CronError(message: "bad \(name) field '\(text)'") }
            var step = 1
            if pieces.count == 2 {
                guard let s = Int(pieces[1]), s > 0 else {
                    throw CronError(message: "bad step in \(name) field '\(text)'")
                }
                step = s
            }
            var lo = range.lowerBound
            var hi = range.upperBound
            if pieces[0] != "*" {
                let bounds = pieces[0].split(separator: "-", omittingEmptySubsequences: false)
                guard (1...2).contains(bounds.count), let a = Int(bounds[0]), let b = Int(bounds[bounds.count - 1]),
                    range.contains(a), range.contains(b), a <= b
                else {
                    throw CronError(
                        message: "bad \(name) field '\(text)' (allowed \(range.lowerBound)-\(range.upperBound))")
                }
                lo = a
                hi = bounds.count == 2 || pieces.count == 2 ? (bounds.count == 2 ? b : range.upperBound) : a
            }
            out.formUnion(stride(from: lo, through: hi, by: step))
        }
        return out
    }

    /// The first matching minute strictly after `date`, in `zone`; nil if none within about four years.
    public func next(after date: Date, in zone: TimeZone) -> Date? {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        var t = date.addingTimeInterval(60 - date.timeIntervalSince1970.truncatingRemainder(dividingBy: 60))
        let limit = date.addingTimeInterval(4 * 366 * 86_400)
        while t < limit {
            let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .weekday], from: t)
            guard let month = c.month, let day = c.day, let hour = c.hour, let minute = c.minute, let wd = c.weekday
            else { return nil }
            if !months.contains(month) {
                guard let startOfMonth = calendar.date(from: DateComponents(year: c.year, month: month, day: 1)),
                    let nextMonth = calendar.date(byAdding: .month, value: 1, to: startOfMonth)
                else { return nil }
                t = nextMonth
                continue
            }
            let dayOK: Bool
            let weekday = wd - 1  // Calendar: 1 = Sunday
            switch (daysRestricted, weekdaysRestricted) {
            case (true, true): dayOK = days.contains(day) || weekdays.contains(weekday)
            case (true, false): dayOK = days.contains(day)
            case (false, true): dayOK = weekdays.contains(weekday)
            case (false, false): dayOK = true
            }
            if !dayOK {
                guard let next = calendar.date(byAdding: .day, value: 1, to: calendar.startOfDay(for: t)) else {
                    return nil
                }
                t = next
                continue
            }
            if !hours.contains(hour) {
                t = t.addingTimeInterval(Double(60 - minute) * 60)
                continue
            }
            if !minutes.contains(minute) {
                t = t.addingTimeInterval(60)
                continue
            }
            return t
        }
        return nil
    }
}

/// Why a cron expression was refused.
public struct CronError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}
