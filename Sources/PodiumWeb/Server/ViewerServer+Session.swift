import Foundation
import Synchronization
import NIOWebSocket
import HummingbirdWebSocket
import Logging
import NIOCore
import PodiumCore

extension ViewerServer {
    /// A message from the page (`viewer.js`): `hello` first, then `ping`s and a `report` a second.
    struct PageMessage: Decodable {
        var type: String
        /// `ping`: the page's clock, echoed in the pong.
        var t: Double?
        /// `hello` and `report`: `webcodecs` or `mse`, and the window's size in device pixels.
        var decoder: String?
        var width: Int?
        var height: Int?
        /// `hello`: a rendition the viewer's link fixes (`?rendition=720p`), and the sound codecs
        /// the page can play (`mp4a.40.2`, `opus`).
        var rendition: String?
        var sound: [String]?
        /// `report`: frames decoded and dropped so far, the last second's decode time, each painted
        /// frame's latency, and the deepest the decode queue got.
        var decoded: Int?
        var dropped: Int?
        var decodeMs: Double?
        var latencies: [Double]?
        var queue: Int?
        /// `report`: the sound's state (`none`, `suspended` until a click, `running`, `unsupported`),
        /// sound packets decoded so far, and each played packet's latency (capture to its place
        /// on the page's sound timeline).
        var audioState: String?
        var audioDecoded: Int?
        var audioLatencies: [Double]?
    }

    /// Which rendition a viewer watches, and when it last had trouble keeping up.
    struct Adaptation {
        /// Fixed by the viewer's link: never changed.
        var fixed: Bool
        /// Index into the feeds, largest first.
        var level: Int
        var calmSince: UInt64

        /// Good for this long, a viewer steps up a rendition (up to the one that fits its window).
        static let calmBeforeStepUp: UInt64 = 10_000_000_000
        /// A decode queue deeper than this means the page cannot keep up.
        static let deepQueue = 4
        /// Frames painted this late (the median of a second) mean the network cannot keep up.
        static let lateMilliseconds = 1_000.0

        /// The smallest rendition at least as large as the picture shown in a `width`x`height`
        /// window (the largest fitted into it, aspect kept), or the largest.
        static func fitting(_ sizes: [PixelSize], width: Int, height: Int) -> Int {
            guard let largest = sizes.first, width > 0, height > 0 else { return 0 }
            let scale = min(1, min(Double(width) / Double(largest.width), Double(height) / Double(largest.height)))
            let shown = (width: Double(largest.width) * scale * 0.95, height: Double(largest.height) * scale * 0.95)
            return sizes.lastIndex { Double($0.width) >= shown.width && Double($0.height) >= shown.height } ?? 0
        }
    }

    /// One WebSocket, from the page's hello to its leaving or the end of the stream.
    func serve(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter, peer: String) async {
        guard admit() else {
            try? await outbound.close(.init(codeNumber: 1013), reason: "Too many viewers; try again later")
            return
        }
        var viewer: Viewer?
        var adaptation = Adaptation(fixed: false, level: 0, calmSince: 0)
        await withTaskGroup(of: Void.self) { group in
            do {
                for try await message in inbound.messages(maxSize: 1 << 16) {
                    guard case .text(let text) = message,
                          let page = try? JSONDecoder().decode(PageMessage.self, from: Data(text.utf8)) else {
                        continue
                    }
                    if let viewer {
                        handle(page, from: viewer, adaptation: &adaptation)
                        continue
                    }
                    guard let joined = join(page, from: peer, adaptation: &adaptation) else {
                        try await outbound.close(.init(codeNumber: 1013), reason: "The stream is starting")
                        break
                    }
                    viewer = joined
                    group.addTask { await self.send(joined, to: outbound) }
                }
            } catch {
                logger.debug("viewer \(peer): \(error)")
            }
            // The page went away: the writer stops too.
            viewer?.finish()
            group.cancelAll()
        }
        release(viewer, level: adaptation.level, peer: peer)
    }

    /// Takes a viewer's slot, if one is free.
    private func admit() -> Bool {
        state.withLock { state in
            guard !state.closed, state.admitted < options.maxViewers else { return false }
            state.admitted += 1
            return true
        }
    }

    /// The page said hello: it starts on the rendition its link fixes, or the one that fits its window.
    private func join(_ hello: PageMessage, from peer: String, adaptation: inout Adaptation) -> Viewer? {
        let feeds = state.withLock { $0.feeds }
        guard hello.type == "hello", let decoder = Viewer.Decoder(rawValue: hello.decoder ?? ""), !feeds.isEmpty else {
            return nil
        }
        let sizes = feeds.map { $0.size ?? PixelSize(width: 0, height: 0) }
        if let fixed = hello.rendition, let level = feeds.firstIndex(where: { $0.name == fixed }) {
            adaptation = Adaptation(fixed: true, level: level, calmSince: clock.now())
        } else {
            let level = Adaptation.fitting(sizes, width: hello.width ?? 0, height: hello.height ?? 0)
            adaptation = Adaptation(fixed: false, level: level, calmSince: clock.now())
        }
        let feed = feeds[adaptation.level]
        let id = board.join(address: peer, rendition: feed.name)
        let viewer = Viewer(id: id, decoder: decoder, soundCodecs: (hello.sound ?? []).prefix(8).map { $0 })
        let closed = state.withLock { state in
            if !state.closed { state.viewers[id] = viewer }
            return state.closed
        }
        if closed { viewer.finish() }
        let names = feeds.map { "\"\($0.name)\"" }.joined(separator: ",")
        viewer.send(.text(#"{"type":"welcome","id":\#(id),"renditions":[\#(names)],"paused":\#(isPaused)}"#),
                    inOrder: true)
        feed.add(viewer)
        let watching = state.withLock { $0.viewers.count }
        logger.notice("viewer \(peer) joined \(options) (\(feed.name), \(decoder.rawValue); \(watching) watching)")
        return viewer
    }

    /// Sends what the viewer is given until it is finished, then closes the socket.
    private func send(_ viewer: Viewer, to outbound: WebSocketOutboundWriter) async {
        do {
            while let message = await viewer.next() {
                switch message {
                case .text(let text): try await outbound.write(.text(text))
                case .data(let buffer), .frame(let buffer), .sound(let buffer):
                    try await outbound.write(.binary(buffer))
                }
            }
            try await outbound.close(.normalClosure, reason: "The presenter stopped the stream")
        } catch {
            viewer.finish()
        }
    }

    /// A ping is answered at once; a report is recorded, and may move the viewer to another rendition.
    private func handle(_ message: PageMessage, from viewer: Viewer, adaptation: inout Adaptation) {
        switch message.type {
        case "ping":
            guard let sent = message.t, sent.isFinite else { return }
            let now = Double(clock.now()) / 1e6
            viewer.send(.text(#"{"type":"pong","t":\#(sent),"server":\#(now)}"#))
        case "report":
            record(message, of: viewer)
            adapt(viewer, to: message, adaptation: &adaptation)
        default:
            break
        }
    }

    private func record(_ report: PageMessage, of viewer: Viewer) {
        let latencies = Self.latencies(report.latencies)
        for latency in latencies { board.latency.record(nanoseconds: UInt64(latency * 1e6)) }
        let soundLatencies = Self.latencies(report.audioLatencies)
        let counts = viewer.counts
        board.update(viewer.id) { figures in
            figures.decoder = viewer.decoder.rawValue
            figures.sent = counts.sent
            figures.skipped = counts.skipped
            figures.decoded = max(0, report.decoded ?? figures.decoded)
            figures.dropped = max(0, report.dropped ?? figures.dropped)
            figures.decodeMilliseconds = report.decodeMs.flatMap { $0.isFinite ? $0 : nil } ?? 0
            figures.latency = Self.times(latencies)
            figures.sound = String((report.audioState ?? figures.sound).prefix(16))
            figures.soundDecoded = max(0, report.audioDecoded ?? figures.soundDecoded)
            figures.soundLatency = Self.times(soundLatencies)
        }
    }

    /// A report's latencies, in order. Latencies below zero come from a clock offset still
    /// settling; a few thousand a second is plenty.
    private static func latencies(_ reported: [Double]?) -> [Double] {
        (reported ?? []).prefix(2_000).filter { $0.isFinite && $0 >= 0 }.sorted()
    }

    /// The percentiles of `sorted` latencies.
    private static func times(_ sorted: [Double]) -> StageTimes {
        guard let last = sorted.last else { return .empty }
        return StageTimes(count: sorted.count, p50: sorted[sorted.count / 2],
                          p95: sorted[min(sorted.count - 1, sorted.count * 95 / 100)],
                          p99: sorted[min(sorted.count - 1, sorted.count * 99 / 100)], max: last)
    }

    /// Steps down a rendition when the viewer fell behind or its decoder backs up; steps back up
    /// after a calm spell, up to the rendition its window needs.
    private func adapt(_ viewer: Viewer, to report: PageMessage, adaptation: inout Adaptation) {
        let latencies = (report.latencies ?? []).sorted()
        let late = latencies.isEmpty ? 0 : latencies[latencies.count / 2]
        let fellBehind = viewer.takeTimesBehind() > 0 || (report.queue ?? 0) > Adaptation.deepQueue
            || late > Adaptation.lateMilliseconds
        let now = clock.now()
        if fellBehind { adaptation.calmSince = now }
        let feeds = state.withLock { $0.feeds }
        guard !adaptation.fixed, feeds.count > 1 else { return }
        let fit = Adaptation.fitting(feeds.map { $0.size ?? PixelSize(width: 0, height: 0) },
                                     width: report.width ?? 0, height: report.height ?? 0)
        var level = adaptation.level
        if fellBehind {
            level = min(feeds.count - 1, level + 1)
        } else if level > fit && now - adaptation.calmSince >= Adaptation.calmBeforeStepUp {
            level -= 1
            adaptation.calmSince = now
        } else if level < fit {
            // The window got smaller: a smaller rendition does.
            level = fit
        }
        guard level != adaptation.level, feeds.indices.contains(adaptation.level) else { return }
        feeds[adaptation.level].remove(viewer)
        viewer.restart()
        feeds[level].add(viewer)
        board.update(viewer.id) { $0.rendition = feeds[level].name }
        logger.info("viewer \(viewer.id) moves from \(feeds[adaptation.level].name) to \(feeds[level].name)")
        adaptation.level = level
    }

    /// The viewer left: its slot is free again.
    private func release(_ viewer: Viewer?, level: Int, peer: String) {
        let feeds = state.withLock { state in
            state.admitted -= 1
            if let viewer { state.viewers[viewer.id] = nil }
            return state.feeds
        }
        guard let viewer else { return }
        if feeds.indices.contains(level) { feeds[level].remove(viewer) }
        let counts = viewer.counts
        board.leave(viewer.id)
        logger.notice("viewer \(peer) left (\(counts.sent) frames sent, \(counts.skipped) skipped)")
    }

    /// Four times a second: tells every page when the presenter freezes or resumes the picture,
    /// and notes what a viewer that never reported was sent and skipped (one that stopped reading
    /// says nothing). A viewer that reports gets its counts with each report, beside its own.
    func watchViewers() async {
        var paused = isPaused
        while (try? await Task.sleep(for: .milliseconds(250))) != nil {
            // Letting go plays on the desktop: on a thread of its own, and only when there is any.
            if let session = input.withLock({ $0 })?.session, session.fellQuietHolding {
                await onOwnThread("podium-input") { session.releaseIfQuiet() }
            }
            let (viewers, feeds) = state.withLock { (Array($0.viewers.values), $0.feeds) }
            for feed in feeds { feed.resyncStragglers(at: clock.now()) }
            for viewer in viewers {
                let counts = viewer.counts
                board.update(viewer.id) { figures in
                    guard figures.decoder.isEmpty else { return }
                    figures.sent = counts.sent
                    figures.skipped = counts.skipped
                }
            }
            let now = isPaused
            guard now != paused else { continue }
            paused = now
            for viewer in viewers { viewer.send(.text(#"{"type":"paused","paused":\#(now)}"#), inOrder: true) }
        }
    }
}
