/// What an SDP answer settled, in a line a person reads: each medium's codec (the first payload
/// type the answer keeps), its parameters, and its direction.
public struct SDPSummary: Sendable, Equatable {
    /// One `m=` section.
    public struct Medium: Sendable, Equatable, CustomStringConvertible {
        public var kind: String
        /// `H264/90000`, `opus/48000/2`; `nil` when the answer names none for it (it refused it).
        public var codec: String?
        public var payload: Int?
        public var parameters: String?
        public var direction: String?

        public var description: String {
            guard let codec, let payload else { return "\(kind) refused" }
            return "\(kind) \(codec) (payload \(payload)\(parameters.map { ", \($0)" } ?? ""))"
                + (direction.map { ", \($0)" } ?? "")
        }
    }

    public var media: [Medium]

    /// Reads the answer's sections; lines it does not know are skipped.
    public init(sdp: String) {
        var media: [Medium] = []
        for line in sdp.split(whereSeparator: \.isNewline).map({ String($0) }) {
            if line.hasPrefix("m=") {
                let fields = line.dropFirst(2).split(separator: " ")
                media.append(Medium(kind: fields.first.map(String.init) ?? "?",
                                    payload: fields.count >= 4 ? Int(fields[3]) : nil))
                continue
            }
            guard var medium = media.popLast() else { continue }
            defer { media.append(medium) }
            guard let payload = medium.payload else { continue }
            if line.hasPrefix("a=rtpmap:\(payload) ") {
                medium.codec = String(line.dropFirst("a=rtpmap:\(payload) ".count))
            } else if line.hasPrefix("a=fmtp:\(payload) ") {
                medium.parameters = String(line.dropFirst("a=fmtp:\(payload) ".count))
            } else if ["a=sendonly", "a=recvonly", "a=sendrecv", "a=inactive"].contains(line) {
                medium.direction = String(line.dropFirst(2))
            }
        }
        self.media = media
    }
}
