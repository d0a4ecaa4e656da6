// swift-tools-version:6.2
import PackageDescription

// A stand-in for an organisation's own case system: it talks to Varsel only through a client that
// swift-openapi-generator makes, at build time, from the OpenAPI document the server serves.
let package = Package(
    name: "member-system",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(url: "https://github.com/apple/swift-openapi-generator", exact: "1.14.3"),
        .package(url: "https://github.com/apple/swift-openapi-runtime", exact: "1.13.4"),
        .package(url: "https://github.com/apple/swift-openapi-urlsession", exact: "1.4.0"),
        // Already in the graph through the runtime; named here because the bearer-token middleware edits its headers.
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
    ],
    targets: [
        .executableTarget(
            name: "member-system",
            dependencies: [
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIURLSession", package: "swift-openapi-urlsession"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            // `openapi.yaml` is a symbolic link to the server's resource; its bytes are also compiled in,
            // so the binary can show which document its client was generated from.
            resources: [.embedInCode("openapi.yaml")],
            plugins: [.plugin(name: "OpenAPIGenerator", package: "swift-openapi-generator")]
        ),
    ]
)
