import Foundation
import PodiumMedia
import Logging
public import PodiumCore
import Synchronization

/// A run built from a plan, with what comes around it: the browser viewers' servers (services for
/// the caller's service group), and the HLS folders, made as outputs open and whose master
/// playlists are written again with the measured rates at the end.
public final class RunSession: Sendable {
    public let run: Run
    public let plan: RunPlan
    /// The served outputs' servers (the browser viewer's): run them in the caller's `ServiceGroup`.
    public let servers: [any OutputServer]
    /// Each encoding's stream id, in the plan's order.
    let streams: [Int]
    let encodeStage: RunBuilder.VideoEncodeStage?
    let soundStage: SoundStage?
    let logger: Logger

    init(run: Run, plan: RunPlan, streams: [Int], encodeStage: RunBuilder.VideoEncodeStage?,
         soundStage: SoundStage?, servers: [any OutputServer], logger: Logger) {
        self.run = run
        self.plan = plan
        self.streams = streams
        self.encodeStage = encodeStage
        self.soundStage = soundStage
        self.servers = servers
        self.logger = logger
    }

    /// What the run does, said as capture starts.
    public struct Start: Sendable {
        /// How each source captures (`1920x1080+0+0 of :1 with MIT-SHM`).
        public var sources: [String]
        /// What each sound source records (`sound from the desktop (the default output's monitor)`).
        public var sounds: [String]
        /// Each encoder and the outputs it feeds (`encoding h264 with libx264 (…) to talk.mkv`).
        public var encoders: [String]
        /// A few words for each encoder (`h264 libx264 ultrafast`).
        public var encoderLabels: [String]
    }

    /// Runs to the end: waits for the viewers' servers to listen (a port in use ends the run
    /// before anything is captured or written), hands them their renditions, and runs the graph.
    /// - Parameters:
    ///   - beforeOutputs: called once every source and stage is open, as the outputs are about to
    ///     open (a statistics file is made); a failure ends the run there.
    ///   - onStart: called as capture starts, with what the run does.
    /// - Returns: the error that ended the run, or `nil` for a clean end.
    public func execute(beforeOutputs: @escaping @Sendable () throws(PodiumError) -> Void = {},
                        onStart: (Start) -> Void = { _ in }) async -> PodiumError? {
        defer { servers.forEach { $0.close() } }
        do throws(PodiumError) {
            for server in servers { try await server.listening() }
        } catch {
            return error
        }
        for server in servers {
            server.open { [run] in run.control.paused.load(ordering: .relaxed) }
        }
        let keeper = Task.detached(priority: .background) { [run] in await HeapKeeper.keep(run) }
        defer { keeper.cancel() }
        let failure = await run.run(beforeOutputs: { () throws(PodiumError) in
            try prepareFolders()
            try beforeOutputs()
        }) {
            onStart(Start(sources: run.sourceDescriptions, sounds: run.soundDescriptions, encoders: encoderLines,
                          encoderLabels: encodeStage?.labels ?? []))
        }
        writeMasterPlaylists()
        return failure
    }

    /// Each encoder and the outputs it feeds, once the encoders are open.
    private var encoderLines: [String] {
        let pictures = (encodeStage?.summaries ?? []).enumerated().map { index, summary in
            "encoding \(summary) to " + plan.encoding.outputs(ofEncoding: index).joined(separator: ", ")
        }
        // Every output and every viewers' server carries the sound.
        let sinks = (plan.encoding.sinks.map(\.description) + plan.encoding.viewers.map(\.options.description))
            .joined(separator: ", ")
        let sound = soundStage.map { "encoding \($0.summary) to \(sinks)" }
        return pictures + (sound.map { [$0] } ?? [])
    }

    /// Once the encoders are open, before any output: each HLS folder is made, and its master
    /// playlist written with the target rates.
    private func prepareFolders() throws(PodiumError) {
        for ladder in plan.encoding.ladders {
            try HLSFolder.prepare(master: ladder.master)
            try HLSFolder.writeMaster(ladder, streams: encodedStreams, sound: soundStream)
        }
    }

    /// At the end: each master playlist gets the peak and average rates measured from its segments.
    private func writeMasterPlaylists() {
        guard run.started.load(ordering: .relaxed) else { return }
        for ladder in plan.encoding.ladders {
            do throws(PodiumError) {
                try HLSFolder.writeMaster(ladder, streams: encodedStreams, sound: soundStream)
            } catch {
                logger.error("\(error)")
            }
        }
    }

    /// The sound's stream, once its encoder is open.
    private var soundStream: StreamDescription? {
        soundStage.flatMap { run.hub.streams(of: Program(streams: [$0.stream])).first }
    }

    /// Each encoding's stream, in the plan's order.
    private var encodedStreams: [StreamDescription] {
        run.hub.streams(of: Program(streams: streams))
    }
}
