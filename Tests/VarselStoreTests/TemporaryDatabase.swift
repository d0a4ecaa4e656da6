import Foundation

/// A fresh directory for one test's SQLite files, named after what the test is about.
func temporaryDirectory(_ purpose: String) throws -> URL {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("varsel-\(purpose)-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    return directory
}

/// The path of a new SQLite file in a fresh directory.
func temporarySQLitePath(_ purpose: String) throws -> String {
    try temporaryDirectory(purpose).appendingPathComponent("varsel.sqlite").path
}
