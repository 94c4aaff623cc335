import ArgumentParser
import Foundation
import PodiumCore

extension Podium {
    /// `podium control`: changes a running Podium through its control socket.
    struct Control: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "control",
            abstract: "Change a running Podium: frame rate, bit rate, pause, blank, zoom…; or read its figures.",
            usage: "podium control [--pid <pid> | --socket <path>] [--json] <command> …",
            discussion: """
                COMMANDS:
                  status                  the rate, the figures of the last second
                  pause, resume           freeze the picture, or let it go on
                  keyframe                a keyframe now, from every encoder
                  set fps=15              the frame rate (within --fps's range)
                  set bitrate=4M          the bit rate (runs with --bitrate)
                  set quality=28          the constant quality, crf (runs without --bitrate)
                  record start FILE       record the run to FILE (.mkv, .mp4, .ts) from now
                  record pause, resume    cut what follows out of it, or go on (one file)
                  record stop             stop that recording, finalized
                  save [LENGTH] [FILE]    write the replay (--replay) to FILE (default: a new
                                          podium-replay-DATE-TIME.mkv), the last LENGTH only
                \(Self.valuedVerbs)
                  key KEY                 what the mirror window's key does: b, w, h, z, d, l,
                                          space, + or -, …  (for keys the desktop binds)

                Without --pid or --socket, the only Podium running as this user is found by its \
                socket in $XDG_RUNTIME_DIR/podium (or /tmp/podium-UID). A run has a socket when it \
                sends to the network, serves viewers or shows a window, or is given --control.

                The socket takes one JSON object a line and answers each with one line:
                  {"command":"set","values":{"fps":"15"}}

                Examples:
                  podium control status
                  podium control set fps=15
                  podium control --pid 4242 pause
                  podium control record start part2.mkv
                  podium control save 30s question.mkv
                  podium control blank white
                  podium control --json status
                """
        )

        /// The live actions that take a value, each with what it does (`blank [black|white|off]  blank the
        /// picture…`), in the columns of the other commands; without a value each does what its key does.
        static var valuedVerbs: String {
            let column = 26
            let lines = LiveAction.valued.flatMap { action in
                let verb = "  \(action.name) [\(action.values.joined(separator: "|"))]"
                let purpose = "\(action.purpose) (without a value: the \(action.key) key)"
                return purpose.wrapped(width: 79 - column).enumerated().map { index, line in
                    (index == 0 ? verb : "").padding(toLength: column, withPad: " ", startingAt: 0) + line
                }
            }
            return lines.joined(separator: "\n")
        }

        @Option(help: ArgumentHelp("The process id of the Podium to change.", valueName: "pid"))
        var pid: Int32?

        @Option(help: ArgumentHelp("The control socket of the Podium to change.", valueName: "path"))
        var socket: String?

        @Flag(help: "Print the reply as Podium sent it, one JSON object.")
        var json = false

        @Argument(help: ArgumentHelp("status, pause, resume, keyframe, set SETTING=VALUE, record start FILE, "
                                     + "record pause|resume|stop, save [LENGTH] [FILE], "
                                     + LiveAction.valued.map(\.name).joined(separator: ", ") + " or key KEY",
                                     valueName: "command"))
        var words: [String] = []

        func validate() throws {
            if pid != nil && socket != nil { throw ValidationError("--pid and --socket name the same thing: pass one") }
            do {
                _ = try request()
            } catch {
                throw ValidationError(error.said)
            }
        }

        /// The request the words make.
        func request() throws(PodiumError) -> ControlRequest {
            guard let first = words.first else {
                throw .usage("name a command: status, pause, resume, keyframe or set SETTING=VALUE")
            }
            let command = ControlRequest.Command(rawValue: first)
            guard command.isKnown else {
                let commands = ControlRequest.Command.all.map(\.rawValue)
                throw .usage("'\(first)' is not a command of podium control: "
                             + commands.dropLast().joined(separator: ", ") + " or " + (commands.last ?? ""))
            }
            let rest = Array(words.dropFirst())
            if command == .record {
                switch rest.first {
                case "start" where rest.count == 2:
                    // The run's folder is not this one: the file is named in full.
                    let here = FileManager.default.currentDirectoryPath
                    let file = rest[1].hasPrefix("/") ? rest[1] : here + "/" + rest[1]
                    return ControlRequest(command: .record, record: "start", file: file)
                case "stop" where rest.count == 1, "pause" where rest.count == 1, "resume" where rest.count == 1:
                    return ControlRequest(command: .record, record: rest[0])
                default:
                    throw .usage("record: 'record start FILE', 'record pause', 'record resume' or 'record stop'")
                }
            }
            if command == .save {
                guard rest.count <= 2 else { throw .usage("save: 'save', 'save 30s', 'save FILE' or 'save 30s FILE'") }
                var request = ControlRequest(command: .save)
                for word in rest {
                    if request.value == nil, request.file == nil, (try? Duration(parsing: word)) != nil {
                        request.value = word
                    } else if request.file == nil {
                        // The run's folder is not this one: the file is named in full.
                        request.file = word.hasPrefix("/")
                            ? word : FileManager.default.currentDirectoryPath + "/" + word
                    } else {
                        throw .usage("save '\(word)': one file at most, after the length")
                    }
                }
                return request
            }
            if command == .key {
                guard rest.count == 1 else { throw .usage("key: name one of the presenter's keys, such as key b") }
                return ControlRequest(command: .key, value: rest[0])
            }
            if let values = command.action?.values {
                guard rest.count <= 1 else {
                    throw .usage("'\(first)' takes one value at most; '\(rest[1])' is one too many")
                }
                if let value = rest.first, !values.contains(value) {
                    throw .usage("\(first) '\(value)': expected one of \(values.joined(separator: ", "))")
                }
                return ControlRequest(command: command, value: rest.first)
            }
            guard command == .set else {
                guard rest.isEmpty else {
                    throw .usage("'\(first)' takes nothing after it; '\(rest[0])' is one too many")
                }
                return ControlRequest(command: command)
            }
            guard !rest.isEmpty else { throw .usage("set: name a setting, such as set fps=15") }
            var values: [String: String] = [:]
            for pair in rest {
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                guard parts.count == 2, !parts[0].isEmpty else {
                    throw .usage("set '\(pair)': expected SETTING=VALUE, such as fps=15")
                }
                values[String(parts[0])] = String(parts[1])
            }
            return ControlRequest(command: .set, values: values)
        }

        func run() async throws {
            let path = try socketPath()
            let request = try request()
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            let line = String(decoding: try encoder.encode(request), as: UTF8.self)
            let answer = try await onOwnThread("podium-control") { () throws(PodiumError) in
                try ControlClient.ask(line, at: path)
            }
            guard let reply = try? JSONDecoder().decode(ControlReply.self, from: Data(answer.utf8)) else {
                throw PodiumError.unavailable("\(path) is not a Podium control socket: it answered "
                                              + "'\(answer.prefix(60))'")
            }
            if json {
                Console.output(answer)
            } else {
                for change in reply.changes ?? [] { Console.output(change) }
                if request.command == .status, let status = reply.status { Console.output(Self.describe(status)) }
                if reply.ok, reply.changes?.isEmpty == true, request.command != .status {
                    Console.output("nothing to change")
                }
            }
            if let error = reply.error { throw PodiumError.usage(error) }
        }

        /// `--socket`, `--pid`'s socket, or the only Podium's.
        private func socketPath() throws(PodiumError) -> String {
            if let socket { return socket }
            if let pid { return ControlAddress.path(pid: pid) }
            let running = ControlAddress.running()
            guard let only = running.first else {
                throw .unavailable("no Podium with a control socket is running as this user (none in "
                                   + "\(ControlAddress.directory)); start one with --control")
            }
            guard running.count == 1 else {
                let choices = running.map(String.init).joined(separator: " or --pid ")
                throw .usage("several Podium runs: pass --pid \(choices)")
            }
            return ControlAddress.path(pid: only)
        }

        /// `podium 4242: fps 24 of 5-60 (auto, held by cpu), 2Mbit/s, picture live`, and the
        /// last second's line.
        static func describe(_ status: ControlStatus) -> String {
            var auto = status.auto ? "auto" : ""
            if let limit = status.limitedBy { auto += ", held by \(limit)" }
            let bounded = status.fpsRange.count == 2
                && status.fpsRange != [FrameRate.range.lowerBound, FrameRate.range.upperBound]
            let range = bounded ? " of \(status.fpsRange[0])-\(status.fpsRange[1])" : ""
            var parts = ["fps \(status.fps)\(range)" + (auto.isEmpty ? "" : " (\(auto))")]
            if let rate = status.rate { parts.append(rate) }
            parts.append("picture \(status.picture)")
            if let layout = status.layout { parts.append(layout) }
            let head = "podium \(status.pid): " + parts.joined(separator: ", ")
            guard let sample = status.sample else { return head }
            return head + "\n  " + sample.line(width: Console.isTerminal ? Console.width - 2 : nil)
        }
    }
}

/// One request and its reply over a control socket.
enum ControlClient {
    /// Sends `line` to the socket at `path` and waits up to 5 s for the one line it answers.
    /// - Throws: 69 when nothing listens there, or it does not answer.
    static func ask(_ line: String, at path: String) throws(PodiumError) -> String {
        guard var address = ControlAddress.socketAddress(path) else {
            throw .usage("--socket '\(path)': longer than a socket path can be")
        }
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw .unavailable("cannot make a socket: \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else {
            throw .unavailable("no Podium listens on \(path): \(String(cString: strerror(errno)))")
        }
        let request = Array((line + "\n").utf8)
        guard request.withUnsafeBytes({ send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) })
                == request.count else {
            throw .unavailable("\(path) closed before taking the request")
        }
        var reply: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var waiting = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        while !reply.contains(0x0A) {
            guard poll(&waiting, 1, 5_000) > 0 else { throw .unavailable("\(path) did not answer within 5 s") }
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            reply += buffer[0..<count]
            // A reply is a line of statistics, not megabytes: something else answers here.
            guard reply.count < 1 << 20 else { break }
        }
        return String(decoding: reply.prefix { $0 != 0x0A }, as: UTF8.self)
    }
}
