// swift-tools-version:6.1
import PackageDescription

/// Settings every Swift target shares: Swift 6 mode plus the upcoming features the style guide asks for.
let swiftSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

/// The version a package is built as (Scripts/package sets PODIUM_VERSION from `git describe`).
let buildVersion: [CSetting] = Context.environment["PODIUM_VERSION"].map {
    [.define("PODIUM_BUILD_VERSION", to: "\"\($0)\"")]
} ?? []

let package = Package(
    name: "Podium",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "podium", targets: ["podium"]),
        // The tests' VA driver (libpodiumfakeva.so, loaded as podiumfake_drv_video.so): a GPU's encoder.
        .library(name: "podiumfakeva", type: .dynamic, targets: ["FakeVADriver"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.2.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-asn1", from: "1.7.4"),
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CXCB",
            pkgConfig: "xcb",
            providers: [.apt(["libxcb1-dev", "libxcb-shm0-dev", "libxcb-randr0-dev", "libxcb-damage0-dev",
                              "libxcb-xfixes0-dev", "libxcb-composite0-dev"])]
        ),
        .systemLibrary(
            name: "CFFmpeg",
            pkgConfig: "libavcodec",
            providers: [.apt(["libavcodec-dev", "libavformat-dev", "libavutil-dev", "libswresample-dev", "libswscale-dev"])]
        ),
        .systemLibrary(name: "CYUV", providers: [.apt(["libyuv-dev"])]),
        .systemLibrary(name: "CVA", providers: [.apt(["libva-dev", "libx11-dev"])]),
        .systemLibrary(name: "CQRencode", providers: [.apt(["libqrencode-dev"])]),
        .systemLibrary(name: "CSRT", pkgConfig: "srt", providers: [.apt(["libsrt-gnutls-dev"])]),
        .systemLibrary(name: "CXXHash", pkgConfig: "libxxhash", providers: [.apt(["libxxhash-dev"])]),
        .target(name: "CBuildInfo", cSettings: buildVersion),
        .systemLibrary(name: "CMalloc"),
        .systemLibrary(name: "CPulse", providers: [.apt(["libpulse-dev"])]),
        // libwayland-client, with the screencopy, xdg-output and layer-shell protocols' generated code,
        // and libxkbcommon for the keys a Wayland keyboard sends.
        .target(name: "CWayland", exclude: ["protocols"],
                linkerSettings: [.linkedLibrary("wayland-client"), .linkedLibrary("xkbcommon")]),
        // libpipewire: a video stream read on PipeWire's thread (its parameters are built with C macros).
        .target(
            name: "CPipeWire",
            cSettings: [.unsafeFlags(["-I/usr/include/pipewire-0.3", "-I/usr/include/spa-0.2", "-D_REENTRANT"])],
            linkerSettings: [.linkedLibrary("pipewire-0.3")]
        ),
        // The tests' PipeWire video source that says what changed (GStreamer's says nothing).
        .executableTarget(
            name: "pipewire-damage-producer",
            path: "Tests/PipeWireProducer",
            cSettings: [.unsafeFlags(["-I/usr/include/pipewire-0.3", "-I/usr/include/spa-0.2", "-D_REENTRANT"])],
            linkerSettings: [.linkedLibrary("pipewire-0.3")]
        ),
        // The tests' pointer on a headless sway (which has no input devices): a virtual pointer.
        .executableTarget(
            name: "wayland-virtual-pointer",
            dependencies: ["CWayland"],
            path: "Tests/WaylandPointer"
        ),
        // GStreamer's webrtcbin (libnice, OpenSSL, libsrtp2): WebRTC's peer connection, driven through
        // GObject signals and properties.
        .target(
            name: "CWebRTC",
            cSettings: [.unsafeFlags(["-I/usr/include/gstreamer-1.0", "-I/usr/include/glib-2.0",
                                      "-I/usr/lib/x86_64-linux-gnu/glib-2.0/include"])],
            linkerSettings: [.linkedLibrary("gstwebrtc-1.0"), .linkedLibrary("gstsdp-1.0"),
                             .linkedLibrary("gstrtp-1.0"), .linkedLibrary("gstreamer-1.0"),
                             .linkedLibrary("gobject-2.0"), .linkedLibrary("glib-2.0")]
        ),
        // sd-bus (libsystemd): the desktop's ScreenCast portal (its messages are read with variadic calls).
        .target(name: "CPortal", linkerSettings: [.linkedLibrary("systemd")]),
        .target(
            name: "PodiumCore",
            dependencies: [
                "CBuildInfo",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Histogram", package: "hdrhistogram-swift"),
                .product(name: "DequeModule", package: "swift-collections"),
            ]
        ),
        .target(
            name: "PodiumX11",
            dependencies: ["PodiumCore", "CXCB", "CXXHash", .product(name: "Logging", package: "swift-log")]
        ),
        .target(
            name: "PodiumMedia",
            dependencies: [
                "PodiumCore", "CFFmpeg", "CYUV", "CSRT", "CVA", .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Sound from the desktop's sound server: straight from PipeWire where it runs, through libpulse
        // otherwise; and PipeWire's nodes, which the cameras are found among too.
        .target(name: "PodiumSound", dependencies: ["PodiumCore", "CPulse", "CPipeWire"]),
        // Wayland screens: wlroots' screencopy, and PipeWire video streams (the ScreenCast portal's,
        // cameras'; libyuv for a webcam's YUYV).
        .target(
            name: "PodiumWayland",
            dependencies: [
                "PodiumCore", "PodiumSound", "CWayland", "CPipeWire", "CPortal", "CYUV",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The browser viewer: the server, the page, and the sinks that feed each viewer.
        .target(
            name: "PodiumWeb",
            dependencies: [
                "PodiumCore",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            // The page, built into the binary.
            resources: [
                .embedInCode("Page/viewer.html"), .embedInCode("Page/viewer.js"), .embedInCode("Page/viewer.css"),
                .embedInCode("Page/remote.html"), .embedInCode("Page/remote.js"), .embedInCode("Page/remote.css"),
                .embedInCode("Page/input.js"),
            ]
        ),
        // WebRTC out: WHIP's exchange over HTTP, and the peer connection (webrtcbin).
        .target(name: "PodiumWebRTC", dependencies: ["PodiumCore", "CWebRTC",
                                                     .product(name: "Logging", package: "swift-log")]),
        // The room's TV: UPnP AV media renderers found by SSDP, sent the stream over HTTP.
        .target(name: "PodiumCast", dependencies: ["PodiumCore", "PodiumMedia",
                                                   .product(name: "Logging", package: "swift-log")]),
        // The builder: a run plan made into a run of real parts (X11, libavcodec, the viewers' server).
        .target(
            name: "PodiumRun",
            dependencies: [
                "PodiumCore", "PodiumX11", "PodiumMedia", "PodiumWeb", "PodiumSound", "PodiumWayland", "PodiumWebRTC",
                "PodiumCast", "CMalloc",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The command line: its commands, options, wording and the terminal, which tests import.
        .target(
            name: "PodiumCLI",
            dependencies: [
                "PodiumCore", "PodiumX11", "PodiumMedia", "PodiumWeb", "PodiumSound", "PodiumWayland", "PodiumRun",
                "PodiumWebRTC", "PodiumCast", "CQRencode", "CBuildInfo",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "podium",
            dependencies: ["PodiumCLI"],
            // swiftc exports every Swift symbol of an executable (44,000 in a release build); each
            // of the ~180 libraries FFmpeg brings then looks its symbols up through that table first,
            // which cost every start ~2 ms. Nothing loaded into podium calls back into it by name.
            linkerSettings: [.unsafeFlags(["-Xlinker", "--no-export-dynamic"])]
        ),
        // Fakes for the graph's rules: a clock, sources, a picture maker, encoders, recording outputs.
        .target(
            name: "PodiumCoreTesting",
            dependencies: ["PodiumCore", .product(name: "Logging", package: "swift-log")],
            path: "Tests/PodiumCoreTesting"
        ),
        // Fixtures shared by the test targets: a private Xvfb, drawing known pixels, running podium, decoding with ffmpeg.
        .target(name: "PodiumTestSupport", dependencies: ["PodiumCore", "PodiumX11", "CXCB"], path: "Tests/PodiumTestSupport"),
        .testTarget(
            name: "PodiumCoreTests",
            dependencies: ["PodiumCore", "PodiumCoreTesting", .product(name: "Logging", package: "swift-log")]
        ),
        .testTarget(name: "PodiumX11Tests", dependencies: ["PodiumX11", "PodiumTestSupport"]),
        // Counts the heap allocations of a thread, to check that the hot path makes none.
        .target(name: "CAllocationCounter", path: "Tests/CAllocationCounter"),
        // libva's driver interface, answered by libx264 (see Tests/FakeVADriver/fake_va.c).
        .target(name: "FakeVADriver", path: "Tests/FakeVADriver", linkerSettings: [.linkedLibrary("x264")]),
        .testTarget(name: "PodiumMediaTests", dependencies: ["PodiumMedia", "PodiumX11", "PodiumTestSupport", "CAllocationCounter"]),
        .testTarget(
            name: "PodiumWebTests",
            dependencies: ["PodiumWeb", "PodiumTestSupport", .product(name: "NIOCore", package: "swift-nio")]
        ),
        // wlroots' screencopy and PipeWire video in-process, against a headless sway and a private PipeWire.
        .testTarget(
            name: "PodiumWaylandTests",
            dependencies: ["PodiumWayland", "PodiumTestSupport", .product(name: "Logging", package: "swift-log")]
        ),
        // The desktop's sound in-process, against a private PipeWire playing tones; the Core's
        // recording sound encoder takes what the source delivers.
        .testTarget(name: "PodiumSoundTests", dependencies: ["PodiumSound", "PodiumCoreTesting", "PodiumTestSupport"]),
        // The graph of real parts, built from a plan and run in-process.
        // WHIP's endpoint, answers and rate control: pure logic, in-process.
        .testTarget(name: "PodiumWebRTCTests", dependencies: ["PodiumWebRTC"]),
        // What renderers say and the refusals of what a hostile one sends: in-process.
        .testTarget(name: "PodiumCastTests", dependencies: ["PodiumCast"]),
        .testTarget(name: "PodiumRunTests", dependencies: ["PodiumRun", "PodiumX11", "PodiumTestSupport"]),
        // The command line in-process: parsing, refusals, help, and the plan a command line makes.
        .testTarget(name: "PodiumCLITests", dependencies: ["PodiumCLI", "PodiumTestSupport"], exclude: ["Golden"]),
        // The commands run whole in the tests' process (`ProgramRun`) against real displays and
        // peers: in a process of their own, as each run takes the cooperative threads its tasks need.
        .testTarget(name: "PodiumCLIRunTests", dependencies: ["PodiumCLI", "PodiumTestSupport"]),
        // What only a process shows: runs of the binary against real displays, peers and signals.
        .testTarget(name: "podiumTests", dependencies: ["podium", "PodiumTestSupport"]),
    ]
)

for target in package.targets where target.type != .system {
    target.swiftSettings = (target.swiftSettings ?? []) + swiftSettings
}
