import CSRT
import Logging
import Synchronization

/// Routes libsrt's log (which it would print to stderr itself) into swift-log, and keeps the last
/// reason a listener gave for rejecting a connection: libavformat reports only "Input/output
/// error", and the reason ("Incorrect passphrase") is what the user needs.
enum SRTLog {
    /// Rejections seen so far, and the reason given for the latest.
    private static let rejections = Mutex<(count: Int, latest: String?)>((0, nil))

    /// How many rejections libsrt has logged so far; compare with `rejection(since:)`.
    static var rejectionCount: Int { rejections.withLock { $0.count } }

    /// The reason of the latest rejection, if one was logged after `count` was read.
    ///
    /// libsrt logs from its own threads, without saying which socket a line is about: with two SRT
    /// outputs refused at the same moment, each may be told the other's reason.
    static func rejection(since count: Int) -> String? {
        rejections.withLock { $0.count > count ? $0.latest : nil }
    }

    static func install() {
        srt_setlogflags(SRT_LOGF_DISABLE_TIME | SRT_LOGF_DISABLE_THREADNAME | SRT_LOGF_DISABLE_SEVERITY
                        | SRT_LOGF_DISABLE_EOL)
        srt_setloglevel(LOG_WARNING)
        srt_setloghandler(nil) { _, _, _, _, _, message in
            guard let message else { return }
            let line = FFmpegLog.redacted(String(cString: message))
            if let reason = SRTLog.rejectionReason(in: line) {
                SRTLog.rejections.withLock { $0 = ($0.count + 1, reason) }
            }
            // Faults reach the user once, in Podium's words naming the output.
            FFmpegLog.logger.withLock { $0 }?.debug("\(line)", metadata: ["srt": "libsrt"])
        }
    }

    /// "…REJECT reported from HS processing: Incorrect passphrase - not processing further" gives
    /// "Incorrect passphrase", the words of `srt_rejectreason_str`.
    static func rejectionReason(in line: String) -> String? {
        guard let start = line.firstRange(of: "REJECT reported from HS processing: ")?.upperBound else { return nil }
        let rest = line[start...]
        let end = rest.firstRange(of: " - not processing")?.lowerBound ?? rest.endIndex
        return String(rest[..<end])
    }
}
