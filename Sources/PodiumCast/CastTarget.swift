import Foundation
public import PodiumCore
import Synchronization

/// `cast:NAME`: a TV (a UPnP AV media renderer) found by a part of its name, which Podium serves
/// the live stream to over HTTP (MPEG-TS, H.264 and AAC) and tells to play it.
public struct CastTarget: StreamOutputPlan {
    /// The part of the renderer's name asked for.
    public var name: String
    /// The renderer found when the output was checked, for the run to start with at once.
    let found: FoundRenderer

    public init(name: String) {
        self.name = name
        found = FoundRenderer()
    }

    public var description: String { "cast:\(name)" }
    /// A short keyframe interval: a TV starts playing at a keyframe. An unchanged screen is still
    /// sent ten times a second: a TV shows a picture about three pictures after it arrives (its
    /// demuxer and decoder hold them), so a change on a still screen showed 3 s late at the usual
    /// one a second, 0.35 s at ten (gmediarender, `podium latency`).
    public var needs: OutputNeeds { OutputNeeds(keyframeInterval: .seconds(1), idleFPS: 10) }
    public var isLocal: Bool { false }

    public func validate(codec: VideoCodec) throws(PodiumError) {
        guard codec == .h264 else {
            throw .usage("a TV plays H.264 in MPEG-TS", about: .output(description), remedy: .videoCodec(.h264))
        }
    }

    public func validate(sound codec: AudioCodec) throws(PodiumError) {
        guard codec == .aac else {
            throw .usage("a TV plays AAC sound", about: .output(description), remedy: .audioCodec(.aac))
        }
    }

    /// Looks for the renderer on the networks this machine is on, and checks that it plays MPEG-TS.
    /// - Throws: 69 when none of that name answers (naming those that did), or when it plays none
    ///   of Podium's formats (naming those it plays).
    public func check(overwrite: Bool) throws(PodiumError) {
        let found = Renderer.discover { $0.isNamed(name) }
        let named = found.renderers.filter { $0.isNamed(name) }
        guard let renderer = named.first else {
            let others = found.renderers.map { "'\($0.name)'" }
            throw .unavailable("no TV named '\(name)' answers"
                               + (others.isEmpty ? " (none does on this machine's networks)"
                                                 : "; found \(others.joined(separator: ", "))")
                               + (found.refused.isEmpty ? "" : "; refused: " + found.refused.joined(separator: "; ")),
                               about: .output(description))
        }
        guard renderer.streamFormat != nil else {
            throw .unavailable("'\(renderer.name)' plays none of Podium's formats (MPEG-TS); it takes "
                               + (renderer.accepts.isEmpty ? "nothing over HTTP"
                                  : renderer.accepts.joined(separator: ", ")),
                               about: .output(description))
        }
        self.found.keep(renderer)
    }

    public func makeOutput(_ context: OutputContext) -> any RunOutput {
        CastOutput(target: self, context: context)
    }

    /// Reads `cast:NAME`.
    public struct Resolver: OutputResolver {
        public init() {}

        public var forms: [String] { ["cast:NAME (a TV)"] }

        public func resolve(_ text: String) throws(OptionParseError) -> (any OutputPlan)? {
            guard text.lowercased().hasPrefix("cast:") else { return nil }
            let name = String(text.dropFirst("cast:".count))
            guard !name.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw OptionParseError("cast: needs a part of a TV's name, as podium cast lists them")
            }
            return CastTarget(name: name)
        }
    }
}

/// The renderer a check found, kept for the run.
final class FoundRenderer: Sendable {
    private let renderer = Mutex<Renderer?>(nil)

    func keep(_ found: Renderer) { renderer.withLock { $0 = found } }
    var current: Renderer? { renderer.withLock { $0 } }
}
