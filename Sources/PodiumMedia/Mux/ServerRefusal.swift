import Glibc
import PodiumCore

/// A media server's "no" to a push, told apart from a server that is not there: retrying cannot
/// change a stream key, a passphrase or a path the server does not accept, so the user hears the
/// server's reason at once.
enum ServerRefusal {
    /// Why the server refused to take the stream, in one line; `nil` when the connection itself
    /// failed (nobody listening, a timeout), which retrying may cure.
    /// - Parameters:
    ///   - code: what opening returned.
    ///   - transcript: what FFmpeg logged while opening.
    ///   - srtRejection: the reason libsrt logged for a rejection during the attempt.
    static func reason(for url: MuxerTarget, code: Int32, transcript: [String], srtRejection: String?) -> String? {
        switch url {
        case .srt:
            return srtRejection.map { "the listener rejected the connection: \($0)" }
        case .rtmp:
            // RTMPS: a key is not sent to a server whose certificate does not check out.
            if ["Peer certificate failed verification", "Unable to verify peer certificate"]
                .contains(where: { line(from: $0, in: transcript) != nil }) {
                return "the server's certificate is not trusted here (?ca=FILE trusts the authorities in FILE)"
            }
            // Servers that say why answer the publish command with an error and a description.
            let marker = "Server error: "
            if let said = line(from: marker, in: transcript) {
                return "the server refused to take the stream: \(said.dropFirst(marker.count))"
            }
            // nginx-rtmp closes the connection when it refuses a key or an application; a server
            // that is not there refuses the TCP connection instead.
            guard code == -EIO || code == FFmpegError.endOfFile.code || code == -EPERM else { return nil }
            return "the server closed the connection when asked to publish: is the application or stream key right?"
        case .rtsp:
            guard FFmpegError.clientErrors.contains(FFmpegError(code: code)) else { return nil }
            let said = line(from: "method ", in: transcript)
            return "the server refused to take the stream: " + (said.map(String.init) ?? "\(FFmpegError(code: code))")
        case .file, .hls, .udp, .tcp, .tcpListen:
            return nil
        }
    }

    /// The first line of `transcript` that holds `marker`, from the marker on.
    private static func line(from marker: String, in transcript: [String]) -> Substring? {
        for line in transcript {
            if let range = line.firstRange(of: marker) { return line[range.lowerBound...] }
        }
        return nil
    }
}
