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

    /// The self-signed certificate kept in `folder`, made now if it is not there.
    /// - Throws: 73 when the folder cannot be made or written.
    init(selfSignedIn folder: String) throws(PodiumError) {
        let (certificateFile, keyFile) = ("viewer-certificate.pem", "viewer-key.pem")
        let (certificatePath, keyPath) = (folder + "/" + certificateFile, folder + "/" + keyFile)
        let files = FileManager.default
        if !files.fileExists(atPath: certificatePath) || !files.fileExists(atPath: keyPath) {
            try Self.make(certificate: certificateFile, key: keyFile, in: folder)
        }
        do {
            try self.init(certificate: certificatePath, key: keyPath)
        } catch {
            throw .cannotCreate("\(certificatePath): \(error.message); remove it and Podium makes another")
        }
    }

    /// A P-256 key and a certificate for localhost and loopback, valid for two years, in files
    /// `certificate` and `key` of `folder`.
    private static func make(certificate: String, key: String, in folder: String) throws(PodiumError) {
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
                    SubjectAlternativeNames([
                        .dnsName("localhost"),
                        .ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1])),
                    ])
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
