import CQRencode
import Foundation
import PodiumCore
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
    static func describeRemote(_ links: [String], quiet: Bool, shown: Bool) -> [String] {
        describe(links, heading: "remote for your phone", file: "remote", quiet: quiet, shown: shown)
    }

    /// The links of an extra screen's page that sends its pointer and keys (`--allow-input`).
    static func describeInput(_ links: [String], quiet: Bool, shown: Bool) -> [String] {
        describe(links, heading: "the extra screen with its pointer and keys", file: "input", quiet: quiet,
                 shown: shown)
    }

    /// `links` under `heading`, and a QR code of the first that another device can reach. A
    /// terminal is often on the screen the room sees: there, unless `shown` (`--show-remote`),
    /// they are written to a file of the user's alone, which the line names (and the run's end
    /// removes). A log or a service (stderr not a terminal) gets the links, as scripts read them.
    private static func describe(_ links: [String], heading: String, file: String, quiet: Bool, shown: Bool)
        -> [String] {
        guard !links.isEmpty else { return [] }
        let terminal = isatty(STDERR_FILENO) != 0
        var lines = [heading + " (keep its link to yourself):"] + links.map { "  " + $0 }
        if !quiet || !shown, terminal,
           let phoneLink = links.first(where: { !$0.contains("://127.") && !$0.contains("://[::1]") }) {
            lines += code(of: phoneLink)
        }
        guard terminal, !shown else { return lines }
        do throws(PodiumError) {
            let path = try SecretFile.write(lines.joined(separator: "\n") + "\n", named: file)
            return ["\(heading): its link and QR code are in \(path) (yours alone: cat it; --show-remote "
                    + "draws them here)"]
        } catch {
            return ["\(heading): its link is not shown on this terminal, and \(error.message); --show-remote "
                    + "draws it here"]
        }
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

/// A file of this user's alone in the control sockets' folder (`$XDG_RUNTIME_DIR/podium`), for
/// what the terminal must not show: `<name>-<pid>.txt`, removed as the run ends.
enum SecretFile {
    static func path(named name: String) -> String { "\(ControlAddress.directory)/\(name)-\(getpid()).txt" }

    /// Writes `text` to the file, made anew (0600, never through a link).
    /// - Returns: its path.
    /// - Throws: 73 when it cannot be written.
    static func write(_ text: String, named name: String) throws(PodiumError) -> String {
        try ControlAddress.prepareDirectory()
        let path = path(named: name)
        unlink(path)
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw .cannotCreate("cannot write \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress, $0.count) }
        guard written == bytes.count else {
            unlink(path)
            throw .cannotCreate("cannot write \(path): \(String(cString: strerror(errno)))")
        }
        return path
    }

    /// Removes the files this run wrote.
    static func removeAll() {
        for name in ["remote", "input"] { unlink(path(named: name)) }
    }
}
