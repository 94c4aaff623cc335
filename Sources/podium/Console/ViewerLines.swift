import CQRencode
import Foundation
import PodiumWeb

/// What a presenter is told of a browser viewer as the run starts: the links to open, a QR code
/// of the one for the room, and the certificate's fingerprint for `https://`.
enum ViewerLines {
    static func describe(_ server: ViewerServer, quiet: Bool) -> [String] {
        let links = server.links
        var lines = ["viewers open " + (links.first ?? "")] + links.dropFirst().map { "         or " + $0 }
        if let fingerprint = server.fingerprint, let origin = server.certificateOrigin {
            lines.append("https certificate \(origin), SHA-256 fingerprint:")
            lines.append("  " + fingerprint)
        }
        // The code of the link for the room: a phone scans it. Only for a person at a terminal.
        if !quiet, isatty(STDERR_FILENO) != 0,
           let roomLink = links.first(where: { !$0.contains("://127.") && !$0.contains("://[::1]") }) {
            lines += code(of: roomLink)
        }
        return lines
    }

    /// The remote's links (`--remote`), and the code of the first one a phone on the network can
    /// open: the presenter's own, to keep from the room.
    static func describeRemote(_ links: [String], quiet: Bool) -> [String] {
        describe(links, heading: "remote for your phone (keep its link to yourself):", quiet: quiet)
    }

    /// The links of an extra screen's page that sends its pointer and keys (`--allow-input`).
    static func describeInput(_ links: [String], quiet: Bool) -> [String] {
        describe(links, heading: "the extra screen with its pointer and keys (keep its link to yourself):",
                 quiet: quiet)
    }

    /// `links` under `heading`, and a QR code of the first that another device can reach.
    private static func describe(_ links: [String], heading: String, quiet: Bool) -> [String] {
        guard !links.isEmpty else { return [] }
        var lines = [heading] + links.map { "  " + $0 }
        if !quiet, isatty(STDERR_FILENO) != 0,
           let phoneLink = links.first(where: { !$0.contains("://127.") && !$0.contains("://[::1]") }) {
            lines += code(of: phoneLink)
        }
        return lines
    }

    /// `text` as a QR code drawn with half blocks, two modules a character cell, dark on light
    /// whatever the terminal's colours, with a quiet zone of two modules around it.
    static func code(of text: String) -> [String] {
        guard let code = QRcode_encodeString(text, 0, QR_ECLEVEL_L, QR_MODE_8, 1) else { return [] }
        defer { QRcode_free(code) }
        let width = Int(code.pointee.width)
        let quiet = 2
        let side = width + 2 * quiet
        func dark(_ row: Int, _ column: Int) -> Bool {
            let (y, x) = (row - quiet, column - quiet)
            guard (0..<width).contains(y), (0..<width).contains(x) else { return false }
            return code.pointee.data[y * width + x] & 1 != 0
        }
        var lines: [String] = []
        for row in stride(from: 0, to: side, by: 2) {
            var line = "\u{1B}[30;107m"
            for column in 0..<side {
                switch (dark(row, column), row + 1 < side && dark(row + 1, column)) {
                case (true, true): line += "█"
                case (true, false): line += "▀"
                case (false, true): line += "▄"
                case (false, false): line += " "
                }
            }
            lines.append(line + "\u{1B}[0m")
        }
        return lines
    }
}
