import Foundation
import NIOCore
import PodiumCore
import PodiumTestSupport
import PodiumWeb
import Testing

/// The fragmented MP4 the MSE viewers get, checked by FFmpeg: an H.264 stream that x264 wrote as
/// Annex B without B-frames (as Podium's encoders make them), cut into access units and written
/// as Podium writes it (one fragment a frame), decodes whole, frame for frame.
@Suite struct FragmentedMP4Tests {
    @Test func ffmpegDecodesEveryFragment() throws {
        let folder = try Tools.temporaryFolder()
        let stream = folder.appendingPathComponent("in.h264").path
        let made = try Tools.run("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc=size=320x240:rate=30",
                                            "-frames:v", "45", "-c:v", "libx264", "-g", "15", "-bf", "0",
                                            "-x264-params", "aud=1", "-f", "h264", stream])
        #expect(made.status == 0, "\(made.stderr)")
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: stream)))
        // Access units start at each delimiter (type 9); keyframes hold an IDR slice (type 5).
        var units: [Range<Int>] = []
        bytes.withUnsafeBytes { buffer in AnnexB.forEachUnit(in: buffer) { units.append($0) } }
        var frames: [(units: [Range<Int>], isKeyframe: Bool)] = []
        var sps: [UInt8] = []
        var pps: [UInt8] = []
        for unit in units {
            switch AnnexB.h264Type(bytes[unit.lowerBound]) {
            case 9: frames.append(([], false))
            case 7: sps = Array(bytes[unit])
            case 8: pps = Array(bytes[unit])
            case let type:
                guard !frames.isEmpty else { continue }
                frames[frames.count - 1].units.append(unit)
                if type == 5 { frames[frames.count - 1].isKeyframe = true }
            }
        }
        #expect(frames.count == 45)
        let configuration = try #require(AnnexB.avcConfiguration(sps: sps, pps: pps))
        var out = FragmentedMP4.initialization(width: 320, height: 240, timeScale: 1_000_000,
                                               configuration: configuration)
        for (index, frame) in frames.enumerated() {
            let size = frame.units.reduce(0) { $0 + 4 + $1.count }
            FragmentedMP4.writeFragment(into: &out, sequence: UInt32(index + 1), decodeTime: UInt64(index) * 33_333,
                                        duration: 33_333, isKeyframe: frame.isKeyframe, sampleSize: size) { out in
                for unit in frame.units {
                    out.writeInteger(UInt32(unit.count))
                    out.writeBytes(bytes[unit])
                }
            }
        }
        let file = folder.appendingPathComponent("out.mp4")
        try Data(out.readableBytesView).write(to: file)
        let decoded = try Tools.run("ffmpeg", ["-v", "error", "-i", file.path, "-f", "null", "-"])
        #expect(decoded.status == 0 && decoded.stderr.isEmpty, "decodes without an error: \(decoded.stderr)")
        let probed = try Tools.probe(file.path)
        #expect(probed.frames == 45 && probed.width == 320 && probed.height == 240, "\(probed)")
        let keyframes = try Tools.run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries",
                                                  "packet=flags", "-of", "csv=p=0", file.path])
        #expect(keyframes.stdout.split(separator: "\n").filter { $0.hasPrefix("K") }.count == 3, "every 15th frame")
    }
}
