public import PodiumCore
import PodiumCast
import PodiumMedia
import PodiumWeb
import PodiumWebRTC
import PodiumX11

/// Every kind of output a run can send to: the place a new kind is added (its resolver here).
public enum OutputCatalog {
    /// The kinds, each asked in turn: the first whose kind the text names answers.
    public static let resolvers: [any OutputResolver] = [
        ProjectorWindow.Resolver(),
        ViewerOptions.Resolver(),
        WHIPEndpoint.Resolver(),
        CastTarget.Resolver(),
        MuxerTarget.Resolver(),
    ]

    /// Reads what `--to` names: an output of a kind in the catalog.
    public static func destination(parsing text: String) throws(OptionParseError) -> Destination {
        try Destination(parsing: text, resolvers: resolvers)
    }
}
