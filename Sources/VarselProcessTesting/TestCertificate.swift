import Foundation

/// A self-signed certificate for `localhost` and 127.0.0.1, with its key, in a folder removed with it.
public final class TestCertificate: Sendable {
    /// The certificate, PEM.
    public let certificatePath: String
    /// Its private key, PEM.
    public let keyPath: String
    private let folder: URL

    /// Why a certificate could not be made.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// A new certificate, made by openssl while the test waits without holding a thread.
    public static func make() async throws -> TestCertificate {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("test-cert-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let certificate = TestCertificate(folder: folder)
        let made = try await ChildProcess.run(
            URL(fileURLWithPath: "/usr/bin/env"),
            [
                "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1", "-days", "2",
                "-keyout", certificate.keyPath, "-out", certificate.certificatePath,
            ], standardError: FileHandle.nullDevice)
        guard made.succeeded else { throw Failure(description: "openssl could not make a certificate") }
        return certificate
    }

    private init(folder: URL) {
        self.folder = folder
        certificatePath = folder.appendingPathComponent("cert.pem").path
        keyPath = folder.appendingPathComponent("key.pem").path
    }

    deinit { try? FileManager.default.removeItem(at: folder) }
}
