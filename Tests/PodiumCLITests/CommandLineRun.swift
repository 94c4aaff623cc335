import ArgumentParser
import Foundation
@testable import PodiumCLI
import Testing

/// What a command line comes to in this process, as the program reads it before it starts a run:
/// parsed, checked, and for a command that runs a plan, the plan made (its source looked up).
enum CommandLineRun {
    enum Outcome {
        /// A command that runs a plan, made ready.
        case prepared(PreparedRun)
        /// Another command, parsed and checked.
        case parsed(any ParsableCommand)
        case refused(Refusal)
    }

    static func outcome(_ arguments: [String]) async -> Outcome {
        do {
            let command = try Podium.parseAsRoot(preparedArguments(arguments))
            guard let planned = command as? any RunsAPlan else { return .parsed(command) }
            return .prepared(try await planned.prepare())
        } catch {
            guard let refusal = Podium.refusal(for: error, arguments: arguments) else {
                return .refused(Refusal(line: "not a failure: \(error)", code: 0))
            }
            return .refused(refusal)
        }
    }

    /// The refusal `arguments` end in; `nil`, and an issue recorded, when they do not.
    static func refusal(_ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) async -> Refusal? {
        guard case .refused(let refusal) = await outcome(arguments) else {
            Issue.record("not refused: \(arguments.joined(separator: " "))", sourceLocation: sourceLocation)
            return nil
        }
        return refusal
    }

    /// The run `arguments` make; `nil`, and an issue recorded, when they are refused.
    static func plan(_ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) async -> PreparedRun? {
        switch await outcome(arguments) {
        case .prepared(let run): return run
        case .refused(let refusal): Issue.record("refused: \(refusal.line)", sourceLocation: sourceLocation)
        case .parsed: Issue.record("not a run: \(arguments.joined(separator: " "))", sourceLocation: sourceLocation)
        }
        return nil
    }

    /// Checks a refusal as the program says it: its code, one line that names `mentions`, nothing
    /// in `folder`, and no `secret` in it.
    static func expect(_ refusal: Refusal?, code: Int32, mentions: String, folder: URL, secret: String? = nil,
                       sourceLocation: SourceLocation = #_sourceLocation) throws {
        guard let refusal else { return }
        #expect(refusal.code == code, "\(refusal.line)", sourceLocation: sourceLocation)
        #expect(!refusal.line.contains("\n"), "one line: \(refusal.line)", sourceLocation: sourceLocation)
        #expect(refusal.line.contains(mentions), "\(refusal.line)", sourceLocation: sourceLocation)
        if let secret { #expect(!refusal.line.contains(secret), "\(refusal.line)", sourceLocation: sourceLocation) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty, "nothing created",
                sourceLocation: sourceLocation)
    }
}
