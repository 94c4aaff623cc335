import CFFmpeg
import CVA
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif
public import PodiumCore

/// What a VAAPI device offers each codec's encoder, asked of libva itself: FFmpeg turns every
/// failure to initialise a device into one "Input/output error", and a user needs to know
/// whether the device, the driver or the codec is missing.
public enum VAAPIProbe {
    /// The render node Podium uses when there is one.
    public static let renderNode = "/dev/dri/renderD128"

    /// The device to use when none is named: the render node when there is one, else the X
    /// display (its driver found through DRI, or named by `LIBVA_DRIVER_NAME`).
    public static func defaultDevice(display: String?) -> String {
        access(renderNode, F_OK) == 0 ? renderNode : (display ?? renderNode)
    }

    /// The FFmpeg encoder of each codec on VAAPI.
    static let encoderNames: [VideoCodec: String] = [
        .h264: "h264_vaapi", .hevc: "hevc_vaapi", .vp9: "vp9_vaapi", .av1: "av1_vaapi",
    ]

    /// The profiles each codec is encoded in, the one Podium asks for first.
    private static let profiles: [VideoCodec: [VAProfile]] = [
        .h264: [VAProfileH264High, VAProfileH264Main, VAProfileH264ConstrainedBaseline],
        .hevc: [VAProfileHEVCMain], .vp9: [VAProfileVP9Profile0], .av1: [VAProfileAV1Profile0],
    ]

    /// What `reasons` said of each device and codec this process asked about: a run's
    /// renditions ask once between them.
    private static let known = Mutex<[String: String?]>([:])

    /// Whether `device` encodes `codec`: `nil`, or why not; asked once in a process.
    static func cachedReason(device: String, codec: VideoCodec) -> String? {
        let key = "\(codec) \(device)"
        // Renditions opening at once ask in turn: a probe's session must not count against another's.
        return known.withLock { answers in
            if let said = answers[key] { return said }
            let reason = reasons(device: device, codecs: [codec])[codec] ?? "not asked"
            answers[key] = .some(reason)
            return reason
        }
    }

    /// Whether `device` encodes each of `codecs`: `nil` for a codec that does, or why not, in a
    /// few words (`no driver`, `decode only`, `session limit` …). Takes a few milliseconds.
    public static func reasons(device: String, codecs: [VideoCodec]) -> [VideoCodec: String?] {
        var reasons: [VideoCodec: String?] = [:]
        var asked: [VideoCodec] = []
        for codec in codecs {
            guard let name = encoderNames[codec] else {
                reasons[codec] = "no VAAPI encoder for \(codec)"
                continue
            }
            if avcodec_find_encoder_by_name(name) == nil {
                reasons[codec] = "not in this FFmpeg"
            } else {
                asked.append(codec)
            }
        }
        guard !asked.isEmpty else { return reasons }
        let opened = VADevice.open(device)
        switch opened {
        case .failure(let refusal):
            for codec in asked { reasons[codec] = refusal.reason }
        case .success(let display):
            for codec in asked {
                reasons.updateValue(display.reason(encoding: codec, in: profiles[codec] ?? []), forKey: codec)
            }
        }
        return reasons
    }
}

/// An initialised libva display, and what it offers.
private final class VADevice {
    let display: VADisplay
    private let close: () -> Void

    private init(display: VADisplay, close: @escaping () -> Void) {
        self.display = display
        self.close = close
    }

    deinit {
        vaTerminate(display)
        close()
    }

    /// Opens and initialises `device`: a render node's path, or an X display.
    static func open(_ device: String) -> Result<VADevice, Refusal> {
        let display: VADisplay
        let close: () -> Void
        if device.hasPrefix("/") {
            let node = Glibc.open(device, O_RDWR | O_CLOEXEC)
            guard node >= 0 else {
                let error = errno
                if error == ENOENT { return .failure(Refusal("no device")) }
                if error == EACCES || error == EPERM {
                    return .failure(Refusal("no permission (join the render or video group)"))
                }
                return .failure(Refusal("cannot open it: \(String(cString: strerror(error)))"))
            }
            guard let made = vaGetDisplayDRM(node) else {
                Glibc.close(node)
                return .failure(Refusal("not a DRM device"))
            }
            display = made
            close = { Glibc.close(node) }
        } else {
            guard let connection = XOpenDisplay(device) else {
                return .failure(Refusal("no device (no such X display)"))
            }
            guard let made = vaGetDisplay(connection) else {
                XCloseDisplay(connection)
                return .failure(Refusal("not a VA display"))
            }
            display = made
            close = { XCloseDisplay(connection) }
        }
        // libva's messages tell the failures apart; they are kept off the terminal.
        let messages = Messages()
        let context = Unmanaged.passUnretained(messages).toOpaque()
        let keep: VAMessageCallback = { context, message in
            guard let context, let message else { return }
            Unmanaged<Messages>.fromOpaque(context).takeUnretainedValue().lines.append(String(cString: message))
        }
        vaSetErrorCallback(display, keep, context)
        vaSetInfoCallback(display, keep, context)
        var major: Int32 = 0
        var minor: Int32 = 0
        let status = withExtendedLifetime(messages) { vaInitialize(display, &major, &minor) }
        vaSetErrorCallback(display, nil, nil)
        vaSetInfoCallback(display, nil, nil)
        guard status == VA_STATUS_SUCCESS else {
            vaTerminate(display)
            close()
            return .failure(Refusal(Self.initFailure(status, messages.lines)))
        }
        return .success(VADevice(display: display, close: close))
    }

    /// Why `vaInitialize` failed, from libva's own lines: no driver found, or one that failed.
    private static func initFailure(_ status: VAStatus, _ lines: [String]) -> String {
        let text = lines.joined(separator: "\n")
        if text.contains("Found init function") || text.contains("init failed") {
            return "driver init failed (\(String(cString: vaErrorStr(status))))"
        }
        if text.contains("has no function") || text.contains("dlopen of") && text.contains("failed") {
            return "no driver (\(driverName(in: lines) ?? "its driver") does not load)"
        }
        if let name = driverName(in: lines) { return "no driver (\(name) is not installed)" }
        return "no driver"
    }

    /// The driver libva looked for, from "Trying to open /…/NAME_drv_video.so".
    private static func driverName(in lines: [String]) -> String? {
        for line in lines {
            guard let range = line.range(of: "Trying to open ") else { continue }
            let file = line[range.upperBound...].split(separator: "/").last ?? ""
            if let end = file.range(of: "_drv_video.so") { return String(file[..<end.lowerBound]) }
        }
        return nil
    }

    /// Whether the first of `profiles` the driver lists can be encoded here: `nil`, or why not.
    func reason(encoding codec: VideoCodec, in profiles: [VAProfile]) -> String? {
        var listed = [VAProfile](repeating: VAProfileNone, count: Int(max(0, vaMaxNumProfiles(display))))
        var count: Int32 = 0
        guard vaQueryConfigProfiles(display, &listed, &count) == VA_STATUS_SUCCESS else {
            return "the driver lists no profiles"
        }
        let offered = Set(listed.prefix(Int(count)).map(\.rawValue))
        guard let profile = profiles.first(where: { offered.contains($0.rawValue) }) else {
            return "no \(codec.displayName) profile"
        }
        let entrypoints = entrypoints(of: profile)
        let encoding: Set<UInt32> = [VAEntrypointEncSlice.rawValue, VAEntrypointEncSliceLP.rawValue,
                                     VAEntrypointEncPicture.rawValue]
        guard let entrypoint = entrypoints.first(where: { encoding.contains($0.rawValue) }) else {
            return entrypoints.contains(where: { $0 == VAEntrypointVLD })
                ? "decode only" : "no encode entrypoint for \(Self.name(of: profile))"
        }
        return sessionRefusal(profile: profile, entrypoint: entrypoint)
    }

    private func entrypoints(of profile: VAProfile) -> [VAEntrypoint] {
        var listed = [VAEntrypoint](repeating: VAEntrypoint(0), count: Int(max(0, vaMaxNumEntrypoints(display))))
        var count: Int32 = 0
        guard vaQueryConfigEntrypoints(display, profile, &listed, &count) == VA_STATUS_SUCCESS else { return [] }
        return Array(listed.prefix(Int(count)))
    }

    /// Whether an encoding session opens now (a driver may allow only so many at once).
    private func sessionRefusal(profile: VAProfile, entrypoint: VAEntrypoint) -> String? {
        var attribute = VAConfigAttrib(type: VAConfigAttribRTFormat, value: UInt32(VA_RT_FORMAT_YUV420))
        var config = VAConfigID(VA_INVALID_ID)
        let made = vaCreateConfig(display, profile, entrypoint, &attribute, 1, &config)
        guard made == VA_STATUS_SUCCESS else {
            return "no 8-bit 4:2:0 encoding (\(String(cString: vaErrorStr(made))))"
        }
        defer { vaDestroyConfig(display, config) }
        var context = VAContextID(VA_INVALID_ID)
        let opened = vaCreateContext(display, config, 320, 240, Int32(VA_PROGRESSIVE), nil, 0, &context)
        guard opened == VA_STATUS_SUCCESS else {
            if opened == VA_STATUS_ERROR_MAX_NUM_EXCEEDED || opened == VA_STATUS_ERROR_HW_BUSY {
                return "session limit"
            }
            return "cannot open a session (\(String(cString: vaErrorStr(opened))))"
        }
        vaDestroyContext(display, context)
        return nil
    }

    /// `H.264 High`, from libva's `VAProfileH264High`.
    private static func name(of profile: VAProfile) -> String {
        guard let name = vaProfileStr(profile) else { return "profile \(profile.rawValue)" }
        let spelled = String(cString: name)
        let words = spelled.hasPrefix("VAProfile") ? String(spelled.dropFirst("VAProfile".count)) : spelled
        for (prefix, spelled) in [("H264", "H.264 "), ("HEVC", "HEVC "), ("VP9", "VP9 "), ("AV1", "AV1 ")]
        where words.hasPrefix(prefix) {
            return spelled + words.dropFirst(prefix.count)
        }
        return words
    }
}

/// Why a device did not open, in a few words.
private struct Refusal: Error {
    let reason: String
    init(_ reason: String) { self.reason = reason }
}

/// What libva said while a display was initialised.
private final class Messages {
    var lines: [String] = []
}
