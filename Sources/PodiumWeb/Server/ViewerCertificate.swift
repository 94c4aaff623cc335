import Crypto
import Foundation
import NIOSSL
import PodiumCore
import SwiftASN1
import X509

/// The certificate `https://` serves: the user's (`?cert=FILE&key=FILE`), or one Podium made
/// itself on first use and keeps under `$XDG_CONFIG_HOME/podium/` (`~/.config/podium/`).
struct ViewerCertificate {
    let chain: [NIOSSLCertificate]
    let key: NIOSSLPrivateKey
    /// The SHA-256 of the certificate, `AB:CD:…`, for a viewer to compare with what the browser shows.
    let fingerprint: String
    /// Where it came from, for the start message.
    let origin: String

    /// Reads the user's PEM files.
    /// - Throws: 64 naming the file that cannot be read or is not PEM.
    init(certificate: String, key: String) throws(PodiumError) {
        do {
            chain = try NIOSSLCertificate.fromPEMFile(certificate)
        } catch {
            throw .usage("?cert=\(certificate): cannot read a PEM certificate there (\(Self.reason(error)))")
        }
        do {
            self.key = try NIOSSLPrivateKey(file: key, format: .pem)
        } catch {
            throw .usage("?key=\(key): cannot read a PEM private key there (\(Self.reason(error)))")
        }
        guard let leaf = chain.first, let der = try? leaf.toDERBytes() else {
            throw .usage("?cert=\(certificate): the file holds no certificate")
        }
        fingerprint = Self.fingerprint(der)
        origin = certificate
    }

    /// The self-signed certificate kept in `folder`, made now if it is not there or does not name
    /// all of `names` (host names and addresses: a laptop on a new network); made again, it
    /// names those it named before too, up to 64.
    /// - Throws: 73 when the folder cannot be made or written.
    init(selfSignedIn folder: String, naming names: [String]) throws(PodiumError) {
        let (certificateFile, keyFile) = ("viewer-certificate.pem", "viewer-key.pem")
        let (certificatePath, keyPath) = (folder + "/" + certificateFile, folder + "/" + keyFile)
        let wanted = names.map(Self.generalName)
        let named = FileManager.default.fileExists(atPath: keyPath) ? Self.alternativeNames(certificatePath) : nil
        if named.map({ !Set(wanted).isSubset(of: $0) }) ?? true {
            let kept = (named ?? []).filter { !wanted.contains($0) }
            try Self.make(certificate: certificateFile, key: keyFile, in: folder,
                          naming: Array((wanted + kept).prefix(64)))
        }
        do {
            try self.init(certificate: certificatePath, key: keyPath)
        } catch {
            throw .cannotCreate("\(certificatePath): \(error.message); remove it and Podium makes another")
        }
    }

    /// `name` as a certificate names it: an IP address, or a DNS name.
    static func generalName(_ name: String) -> GeneralName {
        var v4 = in_addr(), v6 = in6_addr()
        if inet_pton(AF_INET, name, &v4) == 1 {
            return .ipAddress(ASN1OctetString(contentBytes: ArraySlice(withUnsafeBytes(of: &v4) { Array($0) })))
        }
        if inet_pton(AF_INET6, name, &v6) == 1 {
            return .ipAddress(ASN1OctetString(contentBytes: ArraySlice(withUnsafeBytes(of: &v6) { Array($0) })))
        }
        return .dnsName(name)
    }

    /// The names the certificate at `path` is for; `nil` when it cannot be read.
    private static func alternativeNames(_ path: String) -> Set<GeneralName>? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8),
              let certificate = try? Certificate(pemEncoded: text),
              let names = try? certificate.extensions.subjectAlternativeNames else { return nil }
        return Set(names)
    }

    /// A P-256 key and a certificate for `names`, valid for two years, in files `certificate` and
    /// `key` of `folder`.
    private static func make(certificate: String, key: String, in folder: String, naming names: [GeneralName])
        throws(PodiumError) {
        let privateKey = P256.Signing.PrivateKey()
        let pem: String
        do {
            let name = try DistinguishedName { CommonName("Podium viewer") }
            let now = Date()
            let made = try Certificate(
                version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(privateKey.publicKey),
                notValidBefore: now - 3_600, notValidAfter: now + 730 * 86_400, issuer: name, subject: name,
                signatureAlgorithm: .ecdsaWithSHA256,
                extensions: try Certificate.Extensions {
                    Critical(BasicConstraints.notCertificateAuthority)
                    Critical(KeyUsage(digitalSignature: true))
                    try ExtendedKeyUsage([.serverAuth])
                    SubjectAlternativeNames(names)
                },
                issuerPrivateKey: .init(privateKey))
            pem = try made.serializeAsPEM().pemString
        } catch {
            throw .software("could not make a certificate for https:// (\(error))")
        }
        do {
            // The key first, readable by its owner only, then the certificate that needs it.
            try ConfigFolder.write(privateKey.pemRepresentation + "\n", to: key, in: folder, permissions: 0o600)
            try ConfigFolder.write(pem + "\n", to: certificate, in: folder, permissions: 0o644)
        } catch {
            throw .cannotCreate("cannot keep the https:// certificate in \(folder) (\(Self.reason(error))); "
                              + "pass ?cert=FILE&key=FILE")
        }
    }

    private static func fingerprint(_ der: [UInt8]) -> String {
        SHA256.hash(data: der).map { byte in
            let digits = Array("0123456789ABCDEF")
            return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
        }.joined(separator: ":")
    }

    private static func reason(_ error: any Error) -> String {
        if let error = error as? CocoaError, let path = error.filePath { return "\(error.code) for \(path)" }
        if let error = error as? NIOSSLError { return "\(error)" }
        return (error as NSError).localizedDescription
    }
}
