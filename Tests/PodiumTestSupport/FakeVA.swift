public import Foundation

/// The tests' VA driver (`Tests/FakeVADriver`) standing for a GPU's encoder: the environment in
/// which libva, given an X display, loads it instead of looking for a GPU. It encodes H.264 with
/// libx264 and fails where `failing` says (`FAKE_VA_FAIL`: `init`, `decode-only`, `frame:N`, …).
public struct FakeVA: Sendable {
    /// Where libva finds it, as `podiumfake_drv_video.so`.
    public let folder: URL
    /// A line for each picture it encoded (size, IDR or P, rate control, bit rate, QP).
    public let log: URL
    private let failing: [String]

    public init(failing: [String] = []) throws {
        folder = try Tools.temporaryFolder()
        log = folder.appendingPathComponent("pictures.log")
        self.failing = failing
        try FileManager.default.createSymbolicLink(at: folder.appendingPathComponent("podiumfake_drv_video.so"),
                                                   withDestinationURL: Tools.built("libpodiumfakeva.so"))
    }

    public var environment: [String: String] {
        ["LIBVA_DRIVER_NAME": "podiumfake", "LIBVA_DRIVERS_PATH": folder.path, "FAKE_VA_LOG": log.path,
         "FAKE_VA_FAIL": failing.joined(separator: ",")]
    }

    /// The pictures it encoded so far, a line each.
    public var pictures: [String] {
        ((try? String(contentsOf: log, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }
}
