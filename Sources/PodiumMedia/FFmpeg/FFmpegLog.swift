import CFFmpeg
public import Logging
import Synchronization

/// Routes FFmpeg's own log lines into swift-log.
///
/// FFmpeg calls its log callback from its own threads (x264's, the muxers'), so the logger lives
/// behind a lock, and each line is formatted by FFmpeg into a stack buffer first.
public enum FFmpegLog {
    private static let logger = Mutex<Logger?>(nil)

    /// Sends FFmpeg's messages at `level` and above to `logger`.
    ///
    /// The corresponding C functions are `av_log_set_level` and `av_log_set_callback`.
    public static func bridge(to logger: Logger, level: Logger.Level) {
        self.logger.withLock { $0 = logger }
        av_log_set_level(ffmpegLevel(level))
        av_log_set_callback { context, level, format, arguments in
            // A protocol's faults (a refused connection, a broken pipe) reach the user once, in
            // Podium's words naming the output; FFmpeg's own line for each attempt is detail.
            let level = FFmpegLog.isProtocol(context) ? max(level, AV_LOG_VERBOSE) : level
            guard level <= av_log_get_level(), let format, let arguments else { return }
            var prefixState: Int32 = 1
            let line = withUnsafeTemporaryAllocation(of: CChar.self, capacity: 1024) { buffer -> String in
                av_log_format_line2(context, level, format, arguments, buffer.baseAddress, Int32(buffer.count), &prefixState)
                return String(cString: buffer.baseAddress!)
            }
            let message = line.trimmingTrailingNewlines()
            guard !message.isEmpty else { return }
            FFmpegLog.logger.withLock { $0 }?.log(level: FFmpegLog.swiftLogLevel(level), "\(message)", metadata: ["ffmpeg.level": "\(level)"])
        }
    }

    /// Whether a log line comes from a protocol (`URLContext`): `tcp`, `udp`, `file`.
    private static func isProtocol(_ context: UnsafeMutableRawPointer?) -> Bool {
        // Every context FFmpeg logs for starts with a pointer to its AVClass.
        guard let logged = context?.assumingMemoryBound(to: UnsafePointer<AVClass>?.self).pointee,
              let name = logged.pointee.class_name else { return false }
        return strcmp(name, "URLContext") == 0
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
    /// (a hardware encoder with no device, say). Call before the pipeline's threads start.
    static func quietly<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        let level = av_log_get_level()
        av_log_set_level(AV_LOG_QUIET)
        defer { av_log_set_level(level) }
        return try body()
    }
}
