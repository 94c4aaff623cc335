import CFFmpeg

/// A negative return code from an FFmpeg call, kept raw so callers can match it.
public struct FFmpegError: Error, Sendable, Equatable, CustomStringConvertible {
    public let code: Int32

    public init(code: Int32) { self.code = code }

    public static let tryAgain = FFmpegError(code: cffmpeg_averror_eagain())
    public static let endOfFile = FFmpegError(code: cffmpeg_averror_eof())
    public static let exit = FFmpegError(code: cffmpeg_averror_exit())
    public static let optionNotFound = FFmpegError(tag: 0xF8, "O", "P", "T")
    /// What a server's 4xx answer (RTSP, HTTP) becomes: 400, 401, 403, 404 and the others.
    static let clientErrors = ["400", "401", "403", "404", "4XX"].map { status in
        let digits = Array(status.utf8)
        return FFmpegError(tag: 0xF8, Unicode.Scalar(digits[0]), Unicode.Scalar(digits[1]), Unicode.Scalar(digits[2]))
    }

    /// `FFERRTAG(a, b, c, d)`, the C macro Swift does not import.
    init(tag first: UInt8, _ second: Unicode.Scalar, _ third: Unicode.Scalar, _ fourth: Unicode.Scalar) {
        let bytes = [UInt32(first), second.value, third.value, fourth.value]
        let tag = bytes.enumerated().reduce(UInt32(0)) { $0 | $1.element << (8 * UInt32($1.offset)) }
        code = -Int32(bitPattern: tag)
    }

    /// FFmpeg's own wording for the code.
    ///
    /// The corresponding C function is `av_strerror`.
    public var description: String {
        var buffer = [CChar](repeating: 0, count: 128)
        av_strerror(code, &buffer, buffer.count)
        return String(decoding: buffer.prefix(while: { $0 != 0 }).map(UInt8.init(bitPattern:)), as: UTF8.self)
    }

    public static func ~= (pattern: FFmpegError, error: any Error) -> Bool {
        (error as? FFmpegError)?.code == pattern.code
    }
}

/// The one funnel for FFmpeg return codes: negative means failure.
/// - Returns: the non-negative value, for calls that return a count.
@discardableResult
func check(_ result: Int32) throws(FFmpegError) -> Int32 {
    guard result >= 0 else { throw FFmpegError(code: result) }
    return result
}
