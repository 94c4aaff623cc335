import PodiumCore
@testable import PodiumMedia
import Testing

@Suite struct MediaTests {
    /// Without a GPU, libx264 is H.264's default; the GPU's encoders are listed with why not.
    @Test func libx264IsTheDefaultH264EncoderAndOpens() {
        let h264 = EncoderCatalog.available(vaapiDevice: "/nonexistent/renderD128").filter { $0.codec == .h264 }
        let vaapi = h264.first { $0.name == "h264_vaapi" }
        #expect(vaapi?.reason == "no device" && vaapi?.isDefault == false)
        #expect(h264.first { $0.isDefault }?.name == "libx264")
        #expect(h264.filter(\.isDefault).count == 1)
    }

    /// `--encoder`: `auto` and `vaapi` fall to software where the GPU's cannot be used (`vaapi`
    /// saying why), a speed preset is software's, and `software` never asks the GPU.
    @Test func theEncoderChosenFallsToSoftwareWithoutAGPU() throws {
        var settings = EncoderSettings(codec: .h264, encoder: .hardware, vaapiDevice: "/nonexistent/renderD128",
                                       size: PixelSize(width: 320, height: 240), framesPerSecond: 30)
        let hardware = try EncoderCatalog.pick(for: settings)
        #expect(hardware.encoder.name == "libx264" && hardware.vaapiDevice == nil)
        #expect(hardware.declined == "h264_vaapi on /nonexistent/renderD128: no device")
        settings.encoder = .auto
        #expect(try EncoderCatalog.pick(for: settings).declined == nil, "auto falls back without a word")
        settings.encoder = .named("h264_vaapi")
        #expect(try EncoderCatalog.pick(for: settings).declined != nil, "the GPU's by name is the GPU's")
        settings.codec = .mjpeg
        settings.encoder = .hardware
        #expect(try EncoderCatalog.pick(for: settings).declined == "VAAPI encodes no mjpeg")
        #expect(EncoderChoice(parsing: "vaapi") == .hardware && EncoderChoice(parsing: "libx265") == .named("libx265"))
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
