import Foundation
import Logging
import PodiumCore

/// Podium's own terminal output: messages on stderr, each starting with `podium: `, and what a
/// command prints on stdout, for the invocation that runs (`Invocation.current`).
enum Console {
    /// Whether stderr is a terminal, where the stats line is rewritten in place.
    static var isTerminal: Bool { Invocation.current.isTerminal }

    /// The terminal's width in columns, read now.
    static var width: Int { Invocation.current.width }

    /// Writes `text` to stderr as is. When stderr is gone (a closed pipe, a full disk), Podium
    /// goes on silently: the recording matters more than the messages.
    static func write(_ text: String) {
        Invocation.current.standardError.write(text)
    }

    /// Writes `line` and a newline to stdout: what a command answers (a listing, a report).
    static func output(_ line: String) {
        Invocation.current.standardOutput.write(line + "\n")
    }

    /// Writes one message: on a terminal wrapped to its width, each line `podium: ` and the lines
    /// after the first indented; elsewhere on one line, for programs that read it.
    /// - Parameter wrapped: `false` for the one line that ends a run with an error, kept whole so
    ///   it can be copied and searched as it is.
    static func say(_ message: String, wrapped: Bool = true) {
        Invocation.current.say(message, wrapped: wrapped)
    }
}

extension Invocation {
    /// `Console.say` for this invocation, from any thread.
    func say(_ message: String, wrapped: Bool = true) {
        let prefix = "podium: "
        let width = wrapped && isTerminal ? width : Int.max
        guard message.count > width - prefix.count else {
            standardError.write(prefix + message + "\n")
            return
        }
        // A line indented under another (an encoder under "2 encoders:") keeps its indent, and
        // its continuation lines go two further.
        let leading = String(message.prefix { $0 == " " })
        let indent = leading + "  "
        let lines = String(message.dropFirst(leading.count)).wrapped(width: width - prefix.count - indent.count)
        let text = lines.enumerated().map { index, line in prefix + (index == 0 ? leading : indent) + line }
        standardError.write(text.joined(separator: "\n") + "\n")
    }
}

/// A swift-log handler that prints `podium: message` lines on stderr.
struct ConsoleLogHandler: LogHandler {
    var logLevel: Logger.Level
    /// Who speaks when it is not Podium: `ffmpeg` (its lines then start `podium: ffmpeg: `).
    var source: String? = nil
    var metadata: Logger.Metadata = [:]
    /// Where it says them: the invocation the logger was made in (it logs from threads of its own).
    var invocation = Invocation.current

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { $1 }
        let context = merged.isEmpty ? ""
            : " (" + merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ") + ")"
        let prefix = (source.map { "\($0): " } ?? "") + (event.level >= .warning ? "\(event.level): " : "")
        if invocation.ownsTerminal { StatsLine.clear() }
        invocation.say(prefix + "\(event.message)" + (event.level <= .info ? context : ""))
    }
}
