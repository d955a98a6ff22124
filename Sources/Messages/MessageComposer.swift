import Foundation
import WallTime

/// A window with its step count: what one post reports.
public struct StepWindow: Sendable, Equatable {
    public var span: TimeWindow
    public var steps: Int
    /// Walking bouts that ended inside the window.
    public var bouts: Int
    /// Steps in the window before this one, of the same length (`{previous_steps}`, `{change}`); nil when unknown.
    public var previousSteps: Int?
    /// The hour (a window of a day or less) or day (a longer window) with the most steps (`{busiest}`).
    public var busiest: StepPeriod?

    public init(_ span: TimeWindow, steps: Int, bouts: Int = 0, previousSteps: Int? = nil, busiest: StepPeriod? = nil) {
        self.span = span
        self.steps = steps
        self.bouts = bouts
        self.previousSteps = previousSteps
        self.busiest = busiest
    }

    /// The window's ends as dates, for the text's formatters.
    var start: Date { span.start.date }
    var end: Date { span.end.date }
}

extension StepWindow: Codable {
    /// How a chart request has kept a window (its ends as dates), so a request left by an earlier version is still read.
    private struct Kept: Codable {
        var start, end: Date
        var steps, bouts: Int
        var previousSteps: Int?
        var busiest: StepPeriod?
    }

    public init(from decoder: any Decoder) throws {
        let kept = try Kept(from: decoder)
        self.init(
            TimeWindow(start: kept.start, end: kept.end), steps: kept.steps, bouts: kept.bouts,
            previousSteps: kept.previousSteps, busiest: kept.busiest)
    }

    public func encode(to encoder: any Encoder) throws {
        try Kept(start: start, end: end, steps: steps, bouts: bouts, previousSteps: previousSteps, busiest: busiest)
            .encode(to: encoder)
    }
}

/// A stretch of time and the steps in it: a window's busiest hour or day, a chart's busiest bar.
public struct StepPeriod: Sendable, Equatable, Codable {
    public var start: Date
    public var end: Date
    public var steps: Int

    public init(start: Date, end: Date, steps: Int) {
        self.start = start
        self.end = end
        self.steps = steps
    }
}

/// Turns step windows into post texts: template, device name, date format and IANA time zone.
public struct MessageComposer: Sendable {
    public let template: Template
    public let device: String
    public let dateFormat: String
    public let timeZone: TimeZone
    public let locale: Locale
    /// The language of the words written beside the text (the chart's labels, its alt text): the one `[text] locale`
    /// names when set, else the template's (the Japanese presets' is Japanese).
    public let language: TextLanguage

    /// The device name the seed text used.
    public static let defaultDevice = "iPhone 5s"
    public static let defaultDateFormat = "MM/dd HH:mm:ss"

    /// Throws `ComposerError.unknownTimeZone` for a name that is not an IANA zone: never a silent fall back to UTC.
    public init(
        template: Template, device: String = MessageComposer.defaultDevice,
        dateFormat: String = MessageComposer.defaultDateFormat, timeZone identifier: String,
        locale: String = "en_US_POSIX", language: TextLanguage? = nil
    ) throws {
        guard let zone = TimeZones.named(identifier) else { throw ComposerError.unknownTimeZone(identifier) }
        self.template = template
        self.language = language ?? template.language
        self.device = device
        self.dateFormat = dateFormat
        self.timeZone = zone
        self.locale = Locale(identifier: locale)
    }

    func formatter(_ format: String) -> DateFormatter {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = timeZone
        f.dateFormat = format
        return f
    }

    /// The text for `window`. When its ends fall in different years (in the composer's zone) and the date format
    /// has no year, both dates get one in front (`yyyy/` + format), so `2025/09/20 18:00:00 〜 2026/11/23 06:49:53`.
    /// A summary preset leaves its walks out when no walk ended in the window (`Template.withoutWalks`).
    public func compose(_ window: StepWindow) -> String {
        let dates = formatter(windowDateFormat(window))
        let seconds = max(0, window.end.timeIntervalSince(window.start))
        let numbers = NumberFormatter()
        numbers.locale = locale
        numbers.numberStyle = locale.identifier == "en_US_POSIX" ? .none : .decimal
        let number = { (n: Int) in numbers.string(from: NSNumber(value: n)) ?? String(n) }
        let steps = number(window.steps)
        let cadence = seconds > 0 ? Double(window.steps) / (seconds / 60) : 0
        let unknown = "—"
        let change = window.previousSteps.map { previous in
            let delta = window.steps - previous
            return delta == 0 ? "±0" : (delta > 0 ? "+" : "-") + number(abs(delta))
        }
        let template = window.bouts == 0 ? Template.withoutWalks[template.source] ?? template : template
        return template.render([
            "previous_steps": window.previousSteps.map(number) ?? unknown,
            "change": change ?? unknown,
            "busiest": window.busiest.map(periodText) ?? unknown,
            "busiest_steps": window.busiest.map { number($0.steps) } ?? unknown,
            "from": dates.string(from: window.start),
            "to": dates.string(from: window.end),
            "steps": steps,
            "device": device,
            "duration": Self.duration(seconds),
            "date": formatter("yyyy/MM/dd").string(from: window.start),
            "cadence": String(Int(cadence.rounded())),
            "bouts": String(window.bouts),
        ])
    }

    /// A busiest period as the template's language writes it: an hour as `17:00–18:00`, a day as `11/21(土)` or
    /// `Sat 11/21`.
    func periodText(_ period: StepPeriod) -> String {
        if period.end.timeIntervalSince(period.start) < 20 * 3600 {
            let time = formatter("HH:mm")
            return time.string(from: period.start) + "–" + time.string(from: period.end)
        }
        let day = formatter(template.language == .japanese ? "MM/dd(E)" : "E MM/dd")
        day.locale = Locale(identifier: template.language == .japanese ? "ja_JP" : "en_US_POSIX")
        return day.string(from: period.start)
    }

    /// The date format for `window`'s `{from}` and `{to}`: `dateFormat`, with a year added when the window spans years.
    func windowDateFormat(_ window: StepWindow) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let crossesYear = calendar.component(.year, from: window.start) != calendar.component(.year, from: window.end)
        return crossesYear && !dateFormat.contains("y") && !dateFormat.contains("Y") ? "yyyy/" + dateFormat : dateFormat
    }

    /// `1h 05m`, `30m`, `45s`.
    static func duration(_ seconds: Double) -> String {
        let s = Int(seconds.rounded())
        if s < 60 { return "\(s)s" }
        let h = s / 3600
        let m = (s % 3600) / 60
        return h > 0 ? "\(h)h \(String(format: "%02d", m))m" : "\(m)m"
    }
}

/// Configuration errors found when building a composer.
public enum ComposerError: Error, Equatable, CustomStringConvertible {
    case unknownTimeZone(String)

    public var description: String {
        switch self {
        case .unknownTimeZone(let n):
            return "unknown time zone '\(n)': use an IANA name such as Asia/Tokyo, Europe/Berlin or UTC"
        }
    }
}

/// IANA time zone lookup that refuses what Foundation would silently turn into something else.
public enum TimeZones {
    public static func named(_ identifier: String) -> TimeZone? {
        if identifier == "UTC" || identifier == "Etc/UTC" { return TimeZone(identifier: "UTC") }
        guard TimeZone.knownTimeZoneIdentifiers.contains(identifier) else { return nil }
        return TimeZone(identifier: identifier)
    }
}
