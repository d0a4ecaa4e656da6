// swift-tools-version:6.2
import PackageDescription

let package = Package(
    name: "varsel",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .library(name: "VarselCore", targets: ["VarselCore"]),
        .executable(name: "varsel", targets: ["varsel"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-async-algorithms.git", from: "1.1.4"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        // Pinned to the minor version `VarselHTTP1Channel` mirrors (a test checks the resolved one). Without its
        // default traits: Varsel reads its settings itself (no swift-configuration) and decodes no form dates with a
        // `DateFormatter` (no full Foundation for that).
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", .upToNextMinor(from: "2.28.1"), traits: []),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth.git", from: "2.5.0"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache.git", from: "2.1.1"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
    ],
    targets: [
        // Every accessibility decision: names, spoken phrases, announcements, focus. Foundation only.
        .target(name: "VarselCore"),
        // The repository protocol, its records, and the data keys that encrypt personal details at rest.
        .target(name: "VarselStore", dependencies: ["VarselCore", .product(name: "Crypto", package: "swift-crypto")]),
        // The embedded default store: SQLite through GRDB.
        .target(
            name: "VarselSQLite",
            dependencies: ["VarselStore", "VarselCore", .product(name: "GRDB", package: "GRDB.swift")]
        ),
        // The store for several instances: PostgreSQL through PostgresNIO.
        .target(
            name: "VarselPostgres",
            dependencies: [
                "VarselStore", "VarselCore",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "_ConnectionPoolModule", package: "postgres-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // Passkeys: WebAuthn's registration and sign-in checks, with the CBOR and COSE they need and nothing more.
        .target(name: "VarselPasskeys", dependencies: [.product(name: "Crypto", package: "swift-crypto")]),
        // What tests ask of the services beyond what the server uses (streams read from an AsyncStream, counted).
        .target(name: "VarselServiceTesting", dependencies: ["VarselService", "VarselCore"]),
        // A browser's side of Web Push for tests: opens what a phone receives, independently of the encrypting code.
        .target(name: "VarselPushTesting", dependencies: [.product(name: "Crypto", package: "swift-crypto")]),
        // Programs a test runs to their end (pg_dump, openssl), awaited without holding a thread of the task pool.
        .target(name: "VarselProcessTesting"),
        // A software authenticator for tests: builds what a browser hands over, so each check can be broken alone.
        .target(name: "VarselPasskeysTesting", dependencies: ["VarselPasskeys", .product(name: "Crypto", package: "swift-crypto")]),
        // One HTTP/1.1 POST to another service (a push service, a webhook endpoint, the text-message gateway).
        .target(
            name: "VarselOutboundHTTP",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        // Web Push: VAPID, aes128gcm payload encryption, the endpoint policy, and the durable delivery worker.
        .target(
            name: "VarselPush",
            dependencies: [
                "VarselCore", "VarselStore", "VarselOutboundHTTP",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // Text messages and email: an SMTP client (STARTTLS or TLS, AUTH) and an HTTP text-message gateway.
        .target(
            name: "VarselMessaging",
            dependencies: [
                "VarselOutboundHTTP",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The use cases, with no HTTP in them: sending notifications, the inbox, users, credentials, validation,
        // upkeep, and the live events' broker and pump.
        .target(
            name: "VarselService",
            dependencies: [
                "VarselCore", "VarselStore", "VarselPush", "VarselPasskeys", "VarselMessaging",
                .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "AsyncAlgorithms", package: "swift-async-algorithms"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The live stream: its frames and hand-written JSON, pace and watchdog, and the HTTP/1 channel that hands an
        // open stream's connection over to it.
        .target(
            name: "VarselLive",
            dependencies: [
                "VarselCore", "VarselStore", "VarselService", "CVarselEpoll",
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // HTTP: routes, authentication, pages; mounts the live stream.
        .target(
            name: "VarselWeb",
            dependencies: [
                "VarselCore", "VarselStore", "VarselService", "VarselLive", "VarselPush", "VarselPasskeys",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ],
            resources: [.copy("Resources")]
        ),
        // Bootstrap: chooses the store, registers services, builds the application.
        .target(
            name: "VarselServer",
            dependencies: [
                "VarselCore", "VarselStore", "VarselSQLite", "VarselPostgres", "VarselService", "VarselWeb", "VarselLive", "VarselPush",
                "VarselMessaging",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ]
        ),
        // The ICU data a static Linux build links instead of the toolchain's: English and Norwegian only, a fifth of
        // the size (scripts/trim_icu_data.py writes it from the toolchain's).
        .target(name: "VarselICUData", exclude: ["icudt76l.dat"]),
        .target(name: "CVarselEpoll"),
        .executableTarget(
            name: "varsel",
            dependencies: [
                "VarselServer", "VarselICUData",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            // A Linux release is linked by LLVM's linker and exports no symbols: nothing loads the program as a
            // library, and the table of its 52,000 names was a tenth of its size. scripts/package.sh also packs its
            // relocations, which needs LLVM's linker.
            linkerSettings: [
                .unsafeFlags(["-use-ld=lld", "-Xlinker", "--no-export-dynamic"], .when(platforms: [.linux], configuration: .release))
            ]
        ),
        // The event-stream benchmark: run in release with scripts/bench.sh; prints its figures.
        .executableTarget(
            name: "varsel-bench",
            dependencies: [
                "VarselStore", "VarselSQLite", "VarselPostgres", "VarselService", "VarselWeb", "VarselCore",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(name: "VarselCoreTests", dependencies: ["VarselCore"]),
        .testTarget(name: "VarselLiveTests", dependencies: ["VarselLive", "VarselService", "VarselStore", "VarselCore"]),
        .testTarget(
            name: "VarselMessagingTests",
            dependencies: [
                "VarselMessaging", "VarselProcessTesting", .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "VarselPasskeysTests", dependencies: ["VarselPasskeys", "VarselPasskeysTesting", .product(name: "Crypto", package: "swift-crypto")]),
        .testTarget(
            name: "VarselOutboundHTTPTests",
            dependencies: [
                "VarselOutboundHTTP", "VarselProcessTesting", .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"), .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        .testTarget(
            name: "VarselPushTests",
            dependencies: [
                "VarselPush", "VarselPushTesting", .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .testTarget(
            name: "VarselStoreTests",
            dependencies: [
                "VarselStore", "VarselSQLite", "VarselPostgres", "VarselCore", "VarselService", "VarselServiceTesting", "VarselProcessTesting",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"), .product(name: "_ConnectionPoolModule", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "VarselServiceTests",
            dependencies: [
                "VarselService", "VarselServiceTesting", "VarselStore", "VarselSQLite", "VarselCore", "VarselPasskeys", "VarselPasskeysTesting",
                "VarselPush", "VarselPushTesting", .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .testTarget(
            name: "VarselWebTests",
            dependencies: [
                "VarselWeb", "VarselLive", "VarselServer", "VarselService", "VarselServiceTesting", "VarselStore", "VarselSQLite", "VarselCore",
                "VarselPush",
                "VarselMessaging", "VarselProcessTesting",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
    ]
)
