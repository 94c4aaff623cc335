import Foundation

/// A network namespace joined to this one by a veth pair, for a peer that must be reached over a
/// real interface: ICE gathers no loopback candidates. Loss is made with nftables and a narrow
/// link with a token bucket (this kernel has no netem). Needs root; removed when released.
public final class NetworkNamespace: Sendable {
    public let name: String
    /// This side's address, the namespace's, and a second one on this side for a server (TURN) that
    /// the namespace may reach when it reaches nothing else here (`reachOnly(_:udpPorts:)`).
    public let hostAddress: String
    public let address: String
    public let serverAddress: String
    private let link: String
    /// The namespace's end of the pair, as programs inside it name their interface.
    public var insideLink: String { link.replacingOccurrences(of: "h", with: "n") }

    public init() throws {
        // A subnet no other namespace here holds: test processes run side by side.
        let held = (try? Tools.run("ip", ["-o", "-4", "addr", "show"]).stdout) ?? ""
        let tag = (1...250).filter { !held.contains("10.213.\($0).") }.randomElement() ?? Int.random(in: 1...250)
        name = "podium-test-\(getpid())-\(tag)"
        link = "pt\(getpid() % 100_000)h\(tag)"
        (hostAddress, address, serverAddress) = ("10.213.\(tag).1", "10.213.\(tag).2", "10.213.\(tag).3")
        let inside = link.replacingOccurrences(of: "h", with: "n")
        for command in [["netns", "add", name], ["link", "add", link, "type", "veth", "peer", "name", inside],
                        ["link", "set", inside, "netns", name], ["addr", "add", "\(hostAddress)/24", "dev", link],
                        ["addr", "add", "\(serverAddress)/24", "dev", link],
                        ["link", "set", link, "up"],
                        ["netns", "exec", name, "ip", "addr", "add", "\(address)/24", "dev", inside],
                        ["netns", "exec", name, "ip", "link", "set", inside, "up"],
                        ["netns", "exec", name, "ip", "link", "set", "lo", "up"]] {
            let done = try Tools.run("ip", command)
            guard done.status == 0 else {
                remove()
                throw TestFailure("ip \(command.joined(separator: " ")): \(done.stderr)")
            }
        }
    }

    deinit { remove() }

    /// Starts `executable` inside the namespace.
    public func start(_ executable: String, _ arguments: [String]) throws -> RunningCommand {
        try Tools.start("/usr/sbin/ip", ["netns", "exec", name, executable] + arguments)
    }

    /// Drops `percent` of the UDP datagrams that reach the namespace (media; HTTP is TCP), at
    /// random, and with `outgoingToo` of those that leave it (the receiver's reports and
    /// requests); 0 drops none again. With `firstMediaBytes`, the first that many bytes of RTP
    /// and RTCP that reach it are dropped too (not ICE's or DTLS's): the beginning of a stream,
    /// which a receiver cannot know was sent.
    public func drop(percent: Int = 0, outgoingToo: Bool = false, firstMediaBytes: Int = 0) throws {
        _ = try Tools.run("ip", ["netns", "exec", name, "nft", "delete", "table", "inet", "podium"])
        guard percent > 0 || firstMediaBytes > 0 else { return }
        // RTP's first byte has version 2 in its top bits; STUN's and DTLS's first bytes are below 64.
        let rtp = "meta l4proto udp @th,64,8 & 0xc0 == 0x80"
        var rules = ["add table inet podium", "add chain inet podium in { type filter hook input priority 0 ; }",
                     "add chain inet podium out { type filter hook output priority 0 ; }"]
        if firstMediaBytes > 0 {
            rules.append("add rule inet podium in \(rtp) quota until \(firstMediaBytes) bytes drop")
        }
        let random = "meta l4proto udp numgen random mod 100 < \(percent) drop"
        if percent > 0 { rules.append("add rule inet podium in \(random)") }
        if percent > 0 && outgoingToo { rules.append("add rule inet podium out \(random)") }
        for rule in rules {
            let done = try Tools.run("ip", ["netns", "exec", name, "nft"] + rule.split(separator: " ").map(String.init))
            guard done.status == 0 else { throw TestFailure("nft \(rule): \(done.stderr)") }
        }
    }

    /// Lets datagrams between the namespace and this side through only to and from `server`'s
    /// `udpPorts` (nftables sets, `3478` or `30000-30050`), as two networks behind their firewalls
    /// that see each other only through a TURN server. HTTP (TCP) still goes through.
    public func reachOnly(_ server: String, udpPorts: [String]) throws {
        let here = "{ \(hostAddress), \(serverAddress) }", ports = "{ \(udpPorts.joined(separator: ", ")) }"
        for rule in ["add table inet podium-reach",
                     "add chain inet podium-reach in { type filter hook input priority 0 ; }",
                     "add chain inet podium-reach out { type filter hook output priority 0 ; }",
                     "add rule inet podium-reach in ip saddr \(here) meta l4proto udp ip saddr != \(server) drop",
                     "add rule inet podium-reach in ip saddr \(server) udp sport != \(ports) drop",
                     "add rule inet podium-reach out ip daddr \(here) meta l4proto udp ip daddr != \(server) drop",
                     "add rule inet podium-reach out ip daddr \(server) udp dport != \(ports) drop"] {
            let done = try Tools.run("ip", ["netns", "exec", name, "nft"] + rule.split(separator: " ").map(String.init))
            guard done.status == 0 else { throw TestFailure("nft \(rule): \(done.stderr)") }
        }
    }

    /// Narrows what reaches the namespace to `kilobitsPerSecond`, as a slow link does: packets
    /// beyond it wait in a queue of up to 300 ms (the delay a receiver's estimate reads), then are
    /// dropped.
    public func limitIncoming(kilobitsPerSecond: Int) throws {
        let done = try Tools.run("tc", ["qdisc", "replace", "dev", link, "root", "tbf", "rate",
                                        "\(kilobitsPerSecond)kbit", "burst", "20kb", "latency", "300ms"])
        guard done.status == 0 else { throw TestFailure("tc tbf on \(link): \(done.stderr)") }
    }

    /// Routes multicast out of the namespace's end of the pair, as a LAN's devices announce
    /// themselves (SSDP's `NOTIFY`): the namespace has no default route.
    public func routeMulticast() throws {
        let done = try Tools.run("ip", ["netns", "exec", name, "ip", "route", "add", "224.0.0.0/4", "dev", insideLink])
        guard done.status == 0 else { throw TestFailure("ip route add 224.0.0.0/4: \(done.stderr)") }
    }

    /// Kills every process inside the namespace (a renderer's helpers that its own kill does not reach).
    public func killAll() {
        guard let listed = try? Tools.run("ip", ["netns", "pids", name]) else { return }
        for pid in listed.stdout.split(separator: "\n").compactMap({ Int32($0.trimmingCharacters(in: .whitespaces)) }) {
            kill(pid, SIGKILL)
        }
    }

    private func remove() {
        killAll()
        _ = try? Tools.run("ip", ["link", "del", link])
        _ = try? Tools.run("ip", ["netns", "del", name])
    }
}
