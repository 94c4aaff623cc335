import Foundation
import Logging
import PodiumCore

/// Podium's own terminal output: messages on stderr, each starting with `podium: `.
enum Console {
    /// Whether stderr is a terminal, where the stats line is rewritten in place.
    static let isTerminal = isatty(STDERR_FILENO) != 0

    /// The terminal's width in columns, read now (it changes when the window is resized): from
    /// the terminal itself, else `$COLUMNS`, else 80.
    static var width: Int {
        var size = winsize()
        if ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        return ProcessInfo.processInfo.environment["COLUMNS"].flatMap { Int($0) }.flatMap { $0 > 0 ? $0 : nil } ?? 80
    }

    /// Writes `text` to stderr as is. When stderr is gone (a closed pipe, a full disk), Podium
    /// goes on silently: the recording matters more than the messages.
    static func write(_ text: String) {
        TextOutput.standardError.write(text)
    }

    /// Writes one message: on a terminal wrapped to its width, each line `podium: ` and the lines
    /// after the first indented; elsewhere on one line, for programs that read it.
    /// - Parameter wrapped: `false` for the one line that ends a run with an error, kept whole so
    ///   it can be copied and searched as it is.
    static func say(_ message: String, wrapped: Bool = true) {
        let prefix = "podium: "
        guard wrapped, isTerminal, message.count > width - prefix.count else { return write(prefix + message + "\n") }
        // A line indented under another (an encoder under "2 encoders:") keeps its indent, and
        // its continuation lines go two further.
        let leading = String(message.prefix { $0 == " " })
        let indent = leading + "  "
        let lines = String(message.dropFirst(leading.count)).wrapped(width: width - prefix.count - indent.count)
        let text = lines.enumerated().map { index, line in prefix + (index == 0 ? leading : indent) + line }
        write(text.joined(separator: "\n") + "\n")
    }
}

/// A swift-log handler that prints `podium: message` lines on stderr.
struct ConsoleLogHandler: LogHandler {
    var logLevel: Logger.Level
    /// Who speaks when it is not Podium: `ffmpeg` (its lines then start `podium: ffmpeg: `).
    var source: String? = nil
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { $1 }
        let context = merged.isEmpty ? "" : " (" + merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ") + ")"
        let prefix = (source.map { "\($0): " } ?? "") + (event.level >= .warning ? "\(event.level): " : "")
        StatsLine.clear()
        Console.say(prefix + "\(event.message)" + (event.level <= .info ? context : ""))
    }
}
