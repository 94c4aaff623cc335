/// One `--to`: the output it names, read by the output catalog's resolvers, and the encoding it
/// asks for beyond the run's defaults (`?size=`, `?bitrate=`…).
public struct Destination: Sendable, CustomStringConvertible {
    public var output: any OutputPlan
    public var rendition: RenditionRequest

    public init(_ output: any OutputPlan, rendition: RenditionRequest = RenditionRequest()) {
        self.output = output
        self.rendition = rendition
    }

    /// Reads `text` with the first of `resolvers` that knows its kind.
    /// - Parameter resolvers: the kinds of output, asked in turn (the output catalog's).
    public init(parsing text: String, resolvers: [any OutputResolver]) throws(OptionParseError) {
        guard !text.isEmpty else { throw OptionParseError("expected a file or a URL") }
        let (named, rendition) = try RenditionRequest.split(text)
        for resolver in resolvers {
            guard let output = try resolver.resolve(named) else { continue }
            if output is any PictureOutputPlan, let field = rendition.fields.first {
                throw OptionParseError("?\(field.prefix { $0 != "=" })= is for encoded outputs; the window shows "
                                       + "the captured picture, scaled to fit")
            }
            self.init(output, rendition: rendition)
            return
        }
        let scheme = named.split(separator: "://", maxSplits: 1).first.map { $0.lowercased() } ?? named
        throw OptionParseError("unknown scheme \(scheme)://; use " + resolvers.flatMap(\.forms).joined(separator: ", "))
    }

    public var description: String {
        guard !rendition.isEmpty else { return output.description }
        let named = output.description
        return named + (named.contains("?") ? "&" : "?") + rendition.fields.joined(separator: "&")
    }

    /// The window it names, if it is one.
    public var window: (any PictureOutputPlan)? { output as? any PictureOutputPlan }
}
