import Foundation
import PodiumCore

/// Checks a network output's host before anything is opened, so a typo is a usage error naming
/// `--to` and the host rather than FFmpeg's own words after capture started.
enum NetworkAddress {
    /// - Throws: 64 when the host is not a valid address and does not resolve.
    static func resolve(_ output: any OutputPlan) throws(PodiumError) {
        guard let host = output.host else { return }
        try resolve(host: host, of: output.description)
    }

    /// - Parameter output: the output as the message names it.
    static func resolve(host: String, of output: String) throws(PodiumError) {
        // Digits and dots are an IPv4 address or nothing: 256.1.1.1 must not go to DNS as a name.
        if host.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }) {
            var address = in_addr()
            guard inet_pton(AF_INET, host, &address) == 1 else {
                throw .usage("--to '\(output)': '\(host)' is not a valid IPv4 address")
            }
            return
        }
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        var found: UnsafeMutablePointer<addrinfo>?
        let code = getaddrinfo(host, nil, &hints, &found)
        guard code == 0 else {
            throw .usage("--to '\(output)': host '\(host)' does not resolve (\(String(cString: gai_strerror(code))))")
        }
        freeaddrinfo(found)
    }
}
