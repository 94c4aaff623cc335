import PodiumCore
@testable import PodiumMedia
import Testing

@Suite struct MediaTests {
    @Test func libx264IsTheDefaultH264EncoderAndOpens() {
        let h264 = EncoderCatalog.available().filter { $0.codec == .h264 }
        #expect(h264.first?.name == "libx264")
        #expect(h264.first?.isDefault == true)
        #expect(h264.filter(\.isDefault).count == 1)
    }

    @Test func encoderNamesAreChecked() {
        #expect(throws: Never.self) { try EncoderCatalog.validate(name: "libx264", codec: .h264) }
        let unknown = #expect(throws: PodiumError.self) { try EncoderCatalog.validate(name: "nope264", codec: .h264) }
        #expect(unknown?.exitCode == .usage && unknown?.subject == .encoder("nope264"))
        let mismatch = #expect(throws: PodiumError.self) { try EncoderCatalog.validate(name: "libx264", codec: .vp9) }
        #expect(mismatch?.exitCode == .usage)
        #expect(mismatch?.subject == .encoder("libx264") && mismatch?.remedy == .videoCodec(.h264))
    }

    func file(_ path: String, _ container: MuxerTarget.Container) -> MuxerTarget {
        .file(path: path, container: container, split: nil)
    }

    @Test func containersRefuseCodecsTheyCannotCarry() throws {
        #expect(throws: Never.self) { try MuxerTarget.udp(host: "h", port: 1).validate(codec: .h264) }
        #expect(throws: Never.self) { try file("a.mkv", .matroska).validate(codec: .vp9) }
        #expect(throws: Never.self) { try file("a.mp4", .mp4).validate(codec: .hevc) }
        let error = #expect(throws: PodiumError.self) { try MuxerTarget.udp(host: "h", port: 1).validate(codec: .vp9) }
        #expect(error?.exitCode == .usage)
        #expect(throws: PodiumError.self) { try file("a.flv", .flv).validate(codec: .vp9) }
    }

    @Test func unknownPresetIsAUsageError() {
        let settings = EncoderSettings(size: PixelSize(width: 64, height: 64), framesPerSecond: 30, preset: "warp9")
        let error = #expect(throws: PodiumError.self) {
            _ = try VideoEncoder(settings: settings, plannedPicture: PixelSize(width: 64, height: 64),
                                 globalHeader: false)
        }
        #expect(error?.exitCode == .usage)
        #expect(error?.subject == .preset("warp9"))
    }

    @Test func keyframeIntervalBecomesFrames() {
        var settings = EncoderSettings(size: PixelSize(width: 64, height: 64), framesPerSecond: 30)
        #expect(settings.gopSize == 60)
        settings.keyframeInterval = .milliseconds(500)
        #expect(settings.gopSize == 15)
    }
}
