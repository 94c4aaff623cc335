import CFFmpeg
public import Logging
import PodiumCore
import Synchronization

/// Routes FFmpeg's own log lines into swift-log.
///
/// FFmpeg calls its log callback from its own threads (x264's, the muxers'), so the logger lives
/// behind a lock, and each line is formatted by FFmpeg into a stack buffer first.
public enum FFmpegLog {
    static let logger = Mutex<Logger?>(nil)

    /// Sends FFmpeg's messages at `level` and above to `logger`.
    ///
    /// The corresponding C functions are `av_log_set_level` and `av_log_set_callback`.
    public static func bridge(to logger: Logger, level: Logger.Level) {
        self.logger.withLock { $0 = logger }
        av_log_set_level(ffmpegLevel(level))
        av_log_set_callback { context, level, format, arguments in
            guard !FFmpegLog.quiet else { return }
            let transcript = FFmpegLog.transcript
            // A protocol's faults (a refused connection, a broken pipe) reach the user once, in
            // Podium's words naming the output; FFmpeg's own line for each attempt is detail. So
            // is what an output says while it opens: a server's refusal is quoted from it; and a
            // GPU encoder's failure, which software takes over from (said once, naming both).
            // Lines the level drops anyway are not looked at (a GPU encoder's debug lines come a frame).
            guard level <= av_log_get_level() || transcript != nil else { return }
            let detail = transcript != nil || FFmpegLog.isProtocol(context) || FFmpegLog.isGPUEncoder(context)
            let level = detail ? max(level, AV_LOG_VERBOSE) : level
            guard level <= av_log_get_level() || transcript != nil, let format, let arguments else { return }
            var prefixState: Int32 = 1
            let line = withUnsafeTemporaryAllocation(of: CChar.self, capacity: 1024) { buffer -> String in
                guard let start = buffer.baseAddress else { return "" }
                av_log_format_line2(context, level, format, arguments, start, Int32(buffer.count), &prefixState)
                return String(cString: start)
            }
            let message = FFmpegLog.redacted(line.trimmingTrailingNewlines())
            guard !message.isEmpty else { return }
            transcript?.append(message)
            guard level <= av_log_get_level() else { return }
            FFmpegLog.logger.withLock { $0 }?.log(level: FFmpegLog.swiftLogLevel(level), "\(message)",
                                                  metadata: ["ffmpeg.level": "\(level)"])
        }
        SRTLog.install()
    }

    /// Strings that are never logged (stream keys, passphrases): each is replaced by `••••`.
    private static let secrets = Mutex<[String]>([])

    /// Adds `secrets` to what is masked in every message FFmpeg or libsrt logs.
    public static func keepSecret(_ secrets: [String]) {
        let added = secrets.filter { !$0.isEmpty }
        guard !added.isEmpty else { return }
        self.secrets.withLock { $0.append(contentsOf: added) }
    }

    /// `message` with every secret masked.
    static func redacted(_ message: String) -> String {
        secrets.withLock { secrets in
            secrets.reduce(message) { $0.replacing($1, with: URLText.mask) }
        }
    }

    /// Set on a thread running `quietly`: what FFmpeg logs there is dropped.
    @TaskLocal private static var quiet = false

    /// The lines FFmpeg logs on this thread while `transcribing` runs.
    @TaskLocal private static var transcript: Transcript?

    /// Runs `body`, collecting what FFmpeg logs meanwhile on this thread instead of printing it:
    /// an output that opens quotes a server's refusal in a message of its own.
    static func transcribing<T>(_ body: () -> T) -> (T, [String]) {
        let transcript = Transcript()
        let result = $transcript.withValue(transcript) { body() }
        return (result, transcript.lines)
    }

    /// Lines collected for one thread; appended from FFmpeg's log callback.
    private final class Transcript: Sendable {
        private let collected = Mutex<[String]>([])
        func append(_ line: String) { collected.withLock { $0.append(line) } }
        var lines: [String] { collected.withLock { $0 } }
    }

    /// Whether a log line comes from a protocol (`URLContext`): `tcp`, `udp`, `file`.
    private static func isProtocol(_ context: UnsafeMutableRawPointer?) -> Bool {
        // Every context FFmpeg logs for starts with a pointer to its AVClass.
        guard let logged = context?.assumingMemoryBound(to: UnsafePointer<AVClass>?.self).pointee,
              let name = logged.pointee.class_name else { return false }
        return strcmp(name, "URLContext") == 0
    }

    /// Whether a log line comes from a VAAPI encoder (`h264_vaapi`), or a hardware device's or
    /// surfaces' context.
    private static func isGPUEncoder(_ context: UnsafeMutableRawPointer?) -> Bool {
        guard let logged = context?.assumingMemoryBound(to: UnsafePointer<AVClass>?.self).pointee,
              let className = logged.pointee.class_name else { return false }
        if strcmp(className, "AVHWDeviceContext") == 0 || strcmp(className, "AVHWFramesContext") == 0 { return true }
        guard let name = logged.pointee.item_name?(context) else { return false }
        return String(cString: name).hasSuffix("_vaapi")
    }

    private static func ffmpegLevel(_ level: Logger.Level) -> Int32 {
        switch level {
        case .trace: AV_LOG_TRACE
        case .debug: AV_LOG_DEBUG
        case .info: AV_LOG_INFO
        case .notice, .warning: AV_LOG_WARNING
        case .error: AV_LOG_ERROR
        case .critical: AV_LOG_FATAL
        }
    }

    private static func swiftLogLevel(_ level: Int32) -> Logger.Level {
        switch level {
        case ...AV_LOG_ERROR: .error
        case ...AV_LOG_WARNING: .warning
        case ...AV_LOG_INFO: .info
        case ...AV_LOG_DEBUG: .debug
        default: .trace
        }
    }
}

extension String {
    fileprivate func trimmingTrailingNewlines() -> String {
        var text = Substring(self)
        while let last = text.last, last.isNewline || last == " " { text = text.dropLast() }
        return String(text)
    }
}

extension FFmpegLog {
    /// Runs `body` with FFmpeg's logging silenced, for probes whose failures are expected
    /// (a hardware encoder with no device, say), on the calling thread.
    static func quietly<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        // This thread's lines only: the process's level is shared by every thread, and a probe or
        // a fall back may run while other encoders log what the user must see. Without the bridge
        // (`podium encoders`) FFmpeg prints by itself, and only its level quiets it.
        guard logger.withLock({ $0 != nil }) else {
            let level = av_log_get_level()
            av_log_set_level(AV_LOG_QUIET)
            defer { av_log_set_level(level) }
            return try body()
        }
        let result = $quiet.withValue(true) { Result { () throws(E) -> T in try body() } }
        return try result.get()
    }
}
