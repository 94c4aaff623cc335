public import Logging

/// One kind of output as a run plans it: read from the text `--to` gives, and checked before
/// anything is opened. Its role says how the run feeds it: most by one encoding
/// (`StreamOutputPlan`); an HLS folder by a ladder of them (`LadderOutputPlan`); the browser
/// viewer by the renditions its server offers (`ServedOutputPlan`); the projector window by the
/// pictures themselves (`PictureOutputPlan`). Each kind lives in the module of the library that
/// writes it (libavformat's muxers in PodiumMedia, WHIP in PodiumWebRTC, the viewer in PodiumWeb,
/// the window in PodiumX11), with an `OutputResolver` that reads it; PodiumRun's output catalog
/// lists the resolvers. Nothing in the plan, the graph or the builder switches over kinds.
public protocol OutputPlan: Sendable, CustomStringConvertible {
    /// How messages and statistics name it, its secrets masked (`rtmp://host/app/••••`).
    var description: String { get }
    /// Stream keys, passphrases, tokens and passwords in it: never shown, never logged.
    var secrets: [String] { get }
    /// What it asks of the encoding it is sent.
    var needs: OutputNeeds { get }
    /// Whether it writes here (a recording, an HLS folder): failing to open it is the user's to fix
    /// (73), and capture waits for it to open so that it has the first picture.
    var isLocal: Bool { get }
    /// The host it sends to or listens on, looked up before anything is opened; `nil` for none.
    var host: String? { get }
    /// The files it writes here by the names the user gave (a recording, a master playlist): no two
    /// outputs may write the same.
    var files: [String] { get }

    /// Refuses a picture codec it cannot carry.
    /// - Throws: 64 about this output, naming the codec that works where there is one.
    func validate(codec: VideoCodec) throws(PodiumError)
    /// Refuses a sound codec it cannot carry.
    /// - Throws: 64 about this output, naming the codec that works.
    func validate(sound: AudioCodec) throws(PodiumError)
    /// Checks, without creating or opening anything, that it can be made: a file that exists (and
    /// no `overwrite`), a folder that is missing, a certificate that cannot be read. May block.
    /// - Throws: 73 for a file that cannot be created, 64 for a request that cannot be honoured.
    func check(overwrite: Bool) throws(PodiumError)
}

/// An output that one encoding feeds, made into the run's output, which opens on a thread of its own.
public protocol StreamOutputPlan: OutputPlan {
    /// The bit rate its encoder starts at and may not exceed when none is asked for, for an output
    /// whose rate follows its receiver (`needs.followsReceiver`); `nil` takes the run's rate control.
    func bitrateCeiling(size: PixelSize, fps: FrameRate) -> Bitrate?
    /// The run's output of this plan, not open yet: it opens on its own thread as the run starts.
    func makeOutput(_ context: OutputContext) -> any RunOutput
}

extension OutputPlan {
    public var secrets: [String] { [] }
    public var host: String? { nil }
    public var files: [String] { [] }
    public func check(overwrite: Bool) throws(PodiumError) {}
}

extension StreamOutputPlan {
    public func bitrateCeiling(size: PixelSize, fps: FrameRate) -> Bitrate? { nil }
}

/// What an output asks of the encoding it is sent, beyond the codecs `validate` accepts.
public struct OutputNeeds: Sendable, Equatable {
    /// H.264's constrained baseline profile and a short rate buffer, in an encoder of its own whose
    /// bit rate follows what the receiver reports (WebRTC).
    public var followsReceiver = false
    /// Codec parameters out of band, as extradata (MP4, Matroska, FLV, a browser's decoder), rather
    /// than before each keyframe.
    public var globalHeader = false
    /// The longest keyframe interval it plays well with (an HLS segment); `nil`: the run's.
    public var keyframeInterval: Duration?
    /// How often an unchanged picture must still reach it (Chromium plays no HLS segments of
    /// MPEG-TS whose pictures are a second apart); 0 for none (a file: a player holds a picture
    /// until the next).
    public var idleFPS = 1
    /// The sound codec it carries when none is asked for.
    public var soundCodec: AudioCodec = .aac

    public init(followsReceiver: Bool = false, globalHeader: Bool = false, keyframeInterval: Duration? = nil,
                idleFPS: Int = 1, soundCodec: AudioCodec = .aac) {
        self.followsReceiver = followsReceiver
        self.globalHeader = globalHeader
        self.keyframeInterval = keyframeInterval
        self.idleFPS = idleFPS
        self.soundCodec = soundCodec
    }
}

/// What an output is made with: the streams it writes and the run's limits.
public struct OutputContext: Sendable {
    /// The streams it writes: its picture's rendition, and the sound.
    public var program: Program
    public var counters: SinkCounters
    /// Packets that may wait for it; about two seconds of pictures and sound.
    public var capacity: Int
    /// At most this much of a recording is lost when the process is killed.
    public var flushInterval: Duration
    public var logger: Logger

    public init(program: Program, counters: SinkCounters, capacity: Int, flushInterval: Duration, logger: Logger) {
        self.program = program
        self.counters = counters
        self.capacity = capacity
        self.flushInterval = flushInterval
        self.logger = logger
    }
}

/// Reads one kind of output from the text `--to` gives: the output catalog asks each resolver in
/// turn, and the first whose kind the text names answers.
public protocol OutputResolver: Sendable {
    /// The forms it reads, as a message that lists what `--to` takes names them (`udp://`).
    var forms: [String] { get }
    /// The output `text` names; `nil` when it names another kind.
    /// - Throws: when it names this kind but cannot be read.
    func resolve(_ text: String) throws(OptionParseError) -> (any OutputPlan)?
}

/// An output written as a ladder of variants (an HLS folder): each variant is an output of its
/// own, with an encoding of its own; the master playlist that lists them is the ladder's.
public protocol LadderOutputPlan: OutputPlan {
    /// Where the master playlist goes.
    var master: String { get }
    /// The ladder and what each variant shares.
    var options: HLSOptions { get }
    /// The output that writes `variant`, and the path of its own playlist.
    func variant(_ variant: HLSOptions.Variant) -> (output: any StreamOutputPlan, playlist: String)
}

/// An output whose guests come to a server of its own (the browser viewer): the run plans the
/// renditions it offers with its encoders, and hands each one's stream to its server.
public protocol ServedOutputPlan: OutputPlan {
    /// `?ladder=`: the renditions it offers; `nil` offers the one its rendition request makes.
    var ladder: [LadderRung]? { get }
    /// Whether what its pages send crosses no network in clear: over TLS, or on loopback.
    var isPrivate: Bool { get }
    /// Its server, not listening yet.
    /// - Throws: 64 for a certificate or key that cannot be read, 73 when one cannot be kept.
    func makeServer(_ context: ServerContext) throws(PodiumError) -> any OutputServer
}

/// What a served output's server is made with.
public struct ServerContext: Sendable {
    public var board: ViewerBoard
    public var clock: any PacingClock
    public var logger: Logger

    public init(board: ViewerBoard, clock: any PacingClock, logger: Logger) {
        self.board = board
        self.clock = clock
        self.logger = logger
    }
}

/// A served output's server: it listens before capture starts, and its guests carry the renditions
/// it offers to its clients.
public protocol OutputServer: AnyObject, Sendable {
    /// The guests (one a rendition, largest first) that carry each rendition's stream, and the
    /// sound's, to its clients: made as the run is built, subscribed as it starts.
    func guests(for renditions: [(name: String, stream: Int)], sound: Int?, hub: StreamHub) -> [any GuestSink]
    /// Returns once it listens.
    /// - Throws: 69 when the port is in use or the address is not this machine's.
    func listening() async throws(PodiumError)
    /// Serves its guests from now on; `isPaused` says whether the run holds its picture.
    func open(isPaused: @escaping @Sendable () -> Bool)
    func close()
}

/// The picture itself, scaled, with no encoder involved (the projector window).
public protocol PictureOutputPlan: OutputPlan {
    /// The monitor it shows on; `nil` for the default.
    var monitor: MonitorSelector? { get }
}
