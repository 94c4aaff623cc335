import CFFmpeg
public import PodiumCore

/// How Podium reaches each kind of output, in one place: the container, what libavformat opens
/// and with which options, whether capture waits for it, and what happens after a fault. Adding a
/// protocol libavformat writes is one case in `MuxerTarget` and one in `MuxerTarget.route`.
public struct OutputRoute: Sendable {
    /// Where the muxer's bytes go.
    enum Destination: Sendable {
        /// A URL that libavformat's protocol layer opens (`file:`, `udp://`, `tcp://`, `srt://`, `rtmp://`).
        case libavformat(String)
        /// A URL that the muxer itself connects to as it writes the header (RTSP sets up its own
        /// RTP sessions).
        case muxer(String)
        /// Sockets of clients that `ClientListener` admits, one muxer each.
        case clients
    }

    /// The file formats Podium writes, each named after libavformat's muxer.
    public let container: MuxerTarget.Container
    let destination: Destination
    /// Options for the protocol and the muxer.
    let options: [(key: String, value: String)]
    /// Whether capture starts without waiting for it: a peer that may come later. A file opens
    /// first, so a recording has every frame.
    public let opensLate: Bool
    /// How it tries again after a fault (a peer that is not there, or went away); `nil`: a fault
    /// ends it.
    public let retry: Backoff?
    /// Whether its datagrams are spread over each frame's interval rather than sent at once: a
    /// receiver's socket buffer overflows when a keyframe arrives in one burst.
    let pacesDatagrams: Bool
    /// Bytes in each datagram, for outputs that pace them.
    let datagramSize: Int
    /// Whether it waits for a receiver to call (SRT's listener mode) rather than calling one.
    var listens = false
    /// Whether it writes files here (a recording, an HLS folder): a failure to open it is the
    /// user's to fix (73), and capture waits for it.
    public var isLocal = false
    /// Whether each connection's timeline starts at zero, as a fresh publisher's does. An HLS
    /// variant keeps the run's timeline, which every variant shares.
    var rebasesTimeline = true
    /// Whether each picture waits for the next, so that it is written lasting until then; other
    /// routes say a picture lasts a frame interval, so the last frame of a recording counts. For
    /// HLS: its muxer takes a segment's length for the sum of its pictures', and an fMP4
    /// fragment's next one starts where its last picture ends, so on a still screen (a frame a
    /// second) a picture that said it lasts a frame interval made a segment short and put the
    /// next one's pictures early. It costs the output one picture's wait.
    var holdsPictures = false
}

extension MuxerTarget {
    /// The route to this output.
    /// - Parameter flushInterval: the longest a complete piece of a recording (an MP4 fragment, a
    ///   Matroska cluster) may wait in the muxer: what a killed run loses at most.
    public func route(flushInterval: Duration) -> OutputRoute {
        // A fragment or cluster is cut once it grows longer than this, and reaches the file with the
        // packet after: half the interval keeps what a kill loses within it.
        let microseconds = flushInterval.nanoseconds / 2_000
        switch self {
        case .file(let path, let container, _):
            let options: [(String, String)] = switch container {
            // Fragmented, so a run that is killed still leaves a playable file.
            case .mp4:
                [("movflags", "frag_keyframe+empty_moov+default_base_moof"), ("frag_duration", "\(microseconds)")]
            // A cluster starts at each keyframe too.
            case .matroska: [("cluster_time_limit", "\(microseconds / 1_000)")]
            case .mpegts, .flv, .rtsp, .hls: []
            }
            return OutputRoute(container: container, destination: .libavformat("file:" + path), options: options,
                               opensLate: false, retry: nil, pacesDatagrams: false, datagramSize: 0, isLocal: true)
        case .hls(let path, let hls):
            // A variant's media playlist; its segments beside it, named after it. Segments and the
            // playlist are written under a temporary name and renamed, so a player (or a kill)
            // never finds half of one listed.
            let stem = String(path.dropLast(".m3u8".count))
            let name = stem.split(separator: "/").last.map(String.init) ?? stem
            var flags = "temp_file+independent_segments"
            if hls.window > 0 { flags += "+delete_segments" }
            var options = [("hls_time", "\(hls.segment.seconds)"), ("hls_list_size", "\(hls.window)"),
                           ("hls_flags", flags), ("hls_segment_type", hls.segmentType.rawValue)]
            switch hls.segmentType {
            case .mpegts: options.append(("hls_segment_filename", stem + "_%05d.ts"))
            case .fmp4:
                options += [("hls_segment_filename", stem + "_%05d.m4s"),
                            ("hls_fmp4_init_filename", name + "_init.mp4")]
            }
            return OutputRoute(container: .hls, destination: .muxer(path), options: options, opensLate: false,
                               retry: nil, pacesDatagrams: false, datagramSize: 0, isLocal: true,
                               rebasesTimeline: false, holdsPictures: true)
        case .udp(let host, let port, let datagrams):
            var options = [("pkt_size", "\(datagrams.packetSize)")]
            if let ttl = datagrams.ttl { options.append(("ttl", "\(ttl)")) }
            return OutputRoute(container: .mpegts, destination: .libavformat("udp://\(Self.authority(host, port))"),
                               options: options, opensLate: false, retry: nil, pacesDatagrams: true,
                               datagramSize: datagrams.packetSize)
        case .tcp(let host, let port, let retries):
            // A connect attempt, or a write to a peer that stopped reading, gives up after 5 s.
            return OutputRoute(container: .mpegts, destination: .libavformat("tcp://\(Self.authority(host, port))"),
                               options: [("timeout", "5000000")], opensLate: retries,
                               retry: retries ? Backoff() : nil, pacesDatagrams: false, datagramSize: 0)
        case .tcpListen:
            // Each packet reaches the client as it is written: a player (a TV) waits for no buffer to fill.
            return OutputRoute(container: .mpegts, destination: .clients, options: [("flush_packets", "1")],
                               opensLate: true, retry: nil, pacesDatagrams: false, datagramSize: 0)
        case .srt(let host, let port, let srt):
            // Options go beside the URL, not in it: a stream id may hold `#`, `&` or `=`, and
            // libavformat would print a URL with the passphrase in it.
            // Closing waits up to a second for what is still queued, as a TCP close would: libsrt's
            // live mode would drop it, and the receiver's last frame with it.
            var options = [("mode", srt.mode.rawValue), ("timeout", "5000000"), ("linger", "1")]
            if let passphrase = srt.passphrase { options.append(("passphrase", passphrase)) }
            if let keyLength = srt.keyLength { options.append(("pbkeylen", "\(keyLength)")) }
            // libsrt counts latency in microseconds.
            if let latency = srt.latencyMilliseconds { options.append(("latency", "\(latency * 1_000)")) }
            if let streamID = srt.streamID { options.append(("streamid", streamID)) }
            return OutputRoute(container: .mpegts, destination: .libavformat("srt://\(Self.authority(host, port))"),
                               options: options, opensLate: true, retry: srt.retries ? Backoff() : nil,
                               pacesDatagrams: false, datagramSize: 0, listens: srt.mode == .listener)
        case .rtmp(let target):
            // The application and key are given as options, so an application of several levels
            // is not split at the wrong slash, and the key stays out of the URL libavformat prints.
            var options = [("rtmp_app", target.app), ("rtmp_playpath", target.key)]
            // RTMPS checks the server's certificate, so a stream key goes only to the server it is
            // meant for (libavformat's TLS trusts any certificate unless told to verify).
            if target.secure {
                options.append(("tls_verify", "1"))
                if let authorities = target.trustedCertificates { options.append(("ca_file", authorities)) }
            }
            return OutputRoute(container: .flv, destination: .libavformat(target.serverURL), options: options,
                               opensLate: true, retry: target.retries ? Backoff() : nil, pacesDatagrams: false,
                               datagramSize: 0)
        case .rtsp(let host, let port, let path, let rtsp):
            let options = [("rtsp_transport", rtsp.transport.rawValue), ("timeout", "5000000")]
            let address = "rtsp://\(Self.authority(host, port ?? 554))/\(path)"
            return OutputRoute(container: .rtsp, destination: .muxer(address), options: options, opensLate: true,
                               retry: rtsp.retries ? Backoff() : nil, pacesDatagrams: false, datagramSize: 0)
        }
    }

    /// The container each output writes: files by extension, MPEG-TS on the network.
    public var container: Container { route(flushInterval: .seconds(1)).container }

    /// Whether the container wants codec parameters in extradata rather than in the stream.
    public var needsGlobalHeader: Bool {
        guard let format = av_guess_format(container.muxerName, nil, nil) else { return false }
        return format.pointee.flags & AVFMT_GLOBALHEADER != 0
    }

    /// Checks, without opening anything, that `codec` can be carried by this output's container.
    /// - Throws: 64 about this output when its container cannot carry `codec`.
    public func validate(codec: VideoCodec) throws(PodiumError) {
        guard let format = av_guess_format(container.muxerName, nil, nil) else {
            throw .unavailable("this FFmpeg has no \(container.muxerName) muxer")
        }
        if case .rtmp = self, codec != .h264 {
            throw .usage("RTMP carries H.264", about: .output("\(self)"), remedy: .videoCodec(.h264))
        }
        if case .hls = self, ![.h264, .hevc].contains(codec) {
            throw .usage("HLS segments carry H.264 or HEVC", about: .output("\(self)"),
                         remedy: .videoCodec(.h264))
        }
        // MPEG-TS and RTSP answer no codec query; they carry H.264 and HEVC with standard stream
        // types and RTP payload formats.
        let fits = [.mpegts, .rtsp, .hls].contains(container)
            ? [.h264, .hevc].contains(codec)
            : avformat_query_codec(format, codec.codecID, FF_COMPLIANCE_NORMAL) == 1
        guard fits else {
            throw .usage("\(codec) cannot be carried in \(container.displayName)", about: .output("\(self)"))
        }
    }

    /// Refuses a sound codec this output's container cannot carry, naming the one that works.
    public func validate(sound codec: AudioCodec) throws(PodiumError) {
        // FLV (and so RTMP) and HLS's MPEG-TS segments carry AAC, not Opus.
        let carriesOpus: Bool = switch self {
        case .hls(_, let options): options.segmentType == .fmp4
        default: container != .flv
        }
        if codec == .opus && !carriesOpus {
            throw .usage("opus cannot be carried in \(container.displayName)", about: .output("\(self)"),
                         remedy: .audioCodec(.aac))
        }
    }

    private static func authority(_ host: String, _ port: Int) -> String {
        "\(host.contains(":") ? "[\(host)]" : host):\(port)"
    }
}

extension MuxerTarget.Container {
    var displayName: String {
        switch self {
        case .matroska: "Matroska (.mkv)"
        case .mp4: "MP4 (.mp4)"
        case .mpegts: "MPEG-TS"
        case .flv: "FLV (.flv)"
        case .rtsp: "RTSP"
        case .hls: "HLS"
        }
    }
}
