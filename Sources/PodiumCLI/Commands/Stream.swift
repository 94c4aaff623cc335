import ArgumentParser
import Foundation
import Logging
import PodiumCore
import PodiumMedia

extension Podium {
    /// `podium stream`: capture, encode, and send to every `--to`.
    struct Stream: RunsAPlan, StopsCleanly {
        static let configuration = CommandConfiguration(
            commandName: "stream",
            abstract: "Capture the screen, encode it, and write it to files and network outputs.",
            usage: "podium stream [options] --to <url> [--to <url> …]",
            discussion: """
                OUTPUTS (--to URL, as many as you like):
                  FILE.mkv  FILE.mp4  FILE.ts  FILE.flv
                      a recording, written as it goes: it plays even if Podium is killed
                  DIR/NAME.m3u8
                      HLS: a master playlist and one playlist per variant
                      ?ladder=1080p,720p@3M,640x360   sizes (default: captured, 720p, 360p)
                      ?segment=1s  ?window=10         segment length; segments kept (0: all)
                      ?segment-type=fmp4              fMP4 segments rather than MPEG-TS
                  udp://HOST:PORT
                      MPEG-TS datagrams, paced over each frame
                      ?pkt_size=1316  ?ttl=N          bytes a datagram; hops, for multicast
                  tcp://HOST:PORT
                      MPEG-TS to a listening peer
                  tcp://HOST:PORT?listen
                      MPEG-TS to every client that connects (&max=16 at once)
                  srt://HOST:PORT
                      MPEG-TS over SRT to a listener
                      ?mode=listener                  or wait for a receiver to call
                      ?latency=MS  ?passphrase=…      receiver's delay; AES, 10-79 characters
                      ?streamid=…                     publish:PATH (MediaMTX), #!::r=…,m=publish
                  rtmp://HOST[:PORT]/APP/KEY  rtmps://HOST[:PORT]/APP/KEY
                      FLV (H.264) to a media server; the key is shown as ••••
                      ?ca=FILE                        RTMPS: the authorities to trust
                  rtsp://HOST[:PORT]/PATH
                      RTSP ANNOUNCE/RECORD, H.264 or HEVC
                      ?transport=tcp|udp              how RTP travels (default: tcp)
                  whip+https://HOST/PATH  whip+http://HOST/PATH
                      WebRTC (H.264, Opus) over WHIP to a media server (Janus,
                      MediaMTX, LiveKit…); an encoder of its own whose bit rate
                      follows the receiver's reports up to ?bitrate= or --bitrate
                      ?token=T                        sent as a Bearer token, never shown
                  cast:NAME
                      a TV on the network (DLNA), by a part of its name: Podium
                      serves it MPEG-TS (H.264, AAC) and tells it to play; see
                      'podium cast' for the TVs there are
                  window[:MONITOR]
                      a fullscreen window, as 'podium mirror' shows
                  http://[HOST]:PORT  https://[HOST]:PORT
                      the browser viewer: a page and its stream, on loopback unless
                      HOST is 0.0.0.0 or an address; over https browsers use WebCodecs
                      ?token=WORD|off                 the link's token (default: random)
                      ?max-viewers=32                 viewers at once
                      ?ladder=1080p,720p,360p         renditions; each viewer gets its fit
                      ?name=podium.lan                the room's name for this machine,
                                                      besides its addresses and host name
                      ?cert=FILE&key=FILE             PEM files (default: a self-signed
                                                      certificate kept in ~/.config/podium)

                tcp://, srt://, rtmp[s]://, rtsp:// and whip+http[s]:// reconnect after a fault, \
                1, 2, 4 … 10 s apart; ?retry=off gives up at once (not WHIP). A server's refusal \
                ends that output.

                Each output may choose its own encoding: ?size=WxH ?max-size=N ?bitrate=RATE \
                ?codec=C ?preset=P after its name; what it leaves out comes from --size, \
                --bitrate, --codec and --preset. Outputs that ask for the same encoding share \
                one encoder; with several, each frame is converted once and every smaller \
                encoding scales from it, each on its own thread, all with keyframes at the same \
                capture times.

                --audio carries the sound the machine plays (or --audio mic, or a source by its \
                name) in every output but the window, the browser viewer included, encoded once, placed \
                on the same clock as the pictures. Given again, it mixes the sources, each at the \
                level its ?gain= sets.

                Two sources (--source twice) share the picture --layout beside, over or one \
                alone.

                Presenter's tools, in every output: --highlight-pointer (h) marks the pointer and \
                each click; --zoom 2 (z: 1, 2, 4) magnifies around the pointer as it moves; \
                --mask-window and --mask notifications paint windows black before any output \
                sees them; --show-region frames the captured area on the screen.

                Keys, in the terminal (and a --to window): + and - step the frame rate, < and > \
                the bit rate (or quality), k sends a keyframe, r starts (or stops) a recording to \
                podium-DATE-TIME.mkv here, space pauses, b and w blank every \
                output black or white (again: back), h highlights the pointer, z zooms, l changes \
                the layout, x swaps the sources, [ and ] resize, ? lists the keys, q quits. podium control \
                changes a run from another terminal; --max-cpu or --fps auto let Podium choose the \
                rate. Every change is one line, and a record in --stats-json. --hotkeys holds the \
                keys for the whole desktop (X11), so they work while the slides have the focus: \
                Ctrl+Alt+B blanks, and so on (see podium mirror --help).

                Ctrl-C (or SIGTERM, SIGHUP, SIGQUIT) stops capture, flushes the encoder and \
                finalizes every output; a second one more than a second later exits at once.

                Examples:
                  podium stream --to talk.mkv
                  podium stream --highlight-pointer --mask-window class:KeePassXC --to talk.mkv
                  podium stream --audio --to talk.mkv
                  podium stream --audio mic --audio-codec opus --to talk.mkv
                  podium stream --audio --audio 'mic?gain=-6dB' --to talk.mkv
                  podium stream --to talk.mkv --to 'live.ts?size=1280x720&bitrate=2M'
                  podium stream --to hls/live.m3u8
                  podium stream -t 30s --fps 60 --crf 20 --to clip.mp4
                  podium stream --fps 5-60 --max-cpu 0.5 --to udp://host:5000
                  podium stream --monitor HDMI-1 --max-size 1280 -b 3M --to udp://host:5000
                  podium stream --source monitor:0 --source 1280x720+1920+0 --to talk.mkv
                  podium stream --region 800x600+100+100 --codec vp9 --to region.mkv
                  podium stream --source portal --to talk.mkv
                  podium stream --source wlr --monitor DP-1 --to talk.mkv
                  podium stream --to 'tcp://0.0.0.0:9000?listen' --to backup.ts
                  podium stream --to http://0.0.0.0:8080 --to talk.mkv
                  podium stream --to 'udp://239.0.0.1:5000?ttl=4' --to talk.mkv
                  podium stream -b 4M --to rtmp://live.example.com/app/KEY --to talk.mkv
                  podium stream --audio --to 'whip+https://sfu.example.com/whip/talk?token=T'
                  podium stream --to 'srt://server:8890?streamid=publish:live/talk'
                  podium stream --audio --to cast:tv --to talk.mkv
                """
        )

        @OptionGroup(title: "Output") var output: OutputOptions
        @OptionGroup(title: "Output") var replay: ReplayOptions
        @OptionGroup(title: "Capture") var capture: CaptureOptions
        @OptionGroup(title: "Global keys and the remote") var hotkeys: HotkeyOptions
        @OptionGroup(title: "Scale") var scale: ScaleOptions
        @OptionGroup(title: "Encode") var encode: EncodeOptions
        @OptionGroup(title: "Sound") var sound: SoundOptions
        @OptionGroup(title: "Run") var runOptions: RunOptions

        func prepare() async throws -> PreparedRun {
            // A replay alone is a run to keep the last minutes of.
            if replay.destination == nil { try output.requireOne() }
            let job = StreamJob(outputs: output.outputs + [replay.destination].compactMap { $0 }, hotkeys: hotkeys,
                                scale: scale, encode: encode, sound: sound, runOptions: runOptions)
            try await job.check()
            return try await job.prepare(capture: capture)
        }
    }
}

/// What `podium stream` does once its flags are read, which `podium extend` does too with a
/// capture of its own: the outputs checked before anything is opened, then the run.
struct StreamJob {
    var outputs: [Destination]
    var hotkeys: HotkeyOptions
    var scale: ScaleOptions
    var encode: EncodeOptions
    var sound: SoundOptions
    var runOptions: RunOptions
    /// Made first: it bridges FFmpeg's messages, which the checks may already cause.
    let logger: Logger

    init(outputs: [Destination], hotkeys: HotkeyOptions, scale: ScaleOptions, encode: EncodeOptions,
         sound: SoundOptions, runOptions: RunOptions) {
        logger = RunSetup.logger(runOptions)
        (self.outputs, self.hotkeys, self.scale, self.encode) = (outputs, hotkeys, scale, encode)
        (self.sound, self.runOptions) = (sound, runOptions)
    }

    /// Checks the outputs, the encoding and the sound before anything is opened or made.
    func check() async throws {
        try hotkeys.checkRemote(viewers: ViewerRequest.viewers(of: outputs))
        try await RunSetup.check(OutputRequest.streams(of: outputs), viewers: ViewerRequest.viewers(of: outputs),
                                 encode: encode.defaults(scale), sound: sound.plan(for: outputs), run: runOptions)
    }

    /// Captures what `capture` names and runs until the end.
    /// - Parameters:
    ///   - parts: more to say in the run's heading.
    ///   - source: the source itself, where `capture` cannot name it (`podium extend` on GNOME).
    ///   - input: plays the browser viewer's pointer and keys (`podium extend --allow-input`).
    func run(capture: CaptureOptions, parts more: [String] = [], source: (any SourcePlan)? = nil,
             input: (any InputInjector)? = nil) async throws {
        try await PlanRunner.run(prepare(capture: capture, parts: more, source: source, input: input))
    }

    /// The run `run(capture:…)` runs: the source looked up, the encoders and the window planned.
    func prepare(capture: CaptureOptions, parts more: [String] = [], source: (any SourcePlan)? = nil,
                 input: (any InputInjector)? = nil) async throws -> PreparedRun {
        let defaults = encode.defaults(scale, display: capture.source.display)
        let streams = OutputRequest.streams(of: outputs)
        let viewers = ViewerRequest.viewers(of: outputs)
        let capturePlan = try await RunSetup.capturePlan(capture.source,
                                                        outputs: streams.map(\.output) + viewers.map(\.options),
                                                        filter: scale.scaleFilter, given: source)
        let encoding = try EncodingPlan(outputs: streams, viewers: viewers, source: capturePlan.size,
                                        fps: capture.fps.start, encode: defaults)
        var windows: [WindowPlan] = []
        var parts = more
        if let asked = outputs.lazy.compactMap(\.window).first {
            let request = WindowRequest(monitor: asked.monitor, naming: { "--to 'window:\($0)'" })
            let (window, targetDisplay) = try await request.plan(capturing: capturePlan, filter: scale.scaleFilter)
            windows.append(window)
            parts.append("showing in a window on \(targetDisplay)")
        }
        let plan = capture.paced(RunPlan(capture: capturePlan, fps: capture.fps.start, windows: windows,
                                         encoding: encoding, sound: sound.plan(for: outputs),
                                         limits: runOptions.limits))
        let replay = outputs.contains { $0.output is ReplayPlan }
        return PreparedRun(plan: plan, parts: parts, options: runOptions,
                           hotkeys: try hotkeys.globalKeys(byDefault: false, replay: replay), remote: hotkeys.remote,
                           input: input, showRemote: hotkeys.showRemote, logger: logger)
    }
}
