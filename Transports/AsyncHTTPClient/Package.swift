// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "CRUDKitAsyncHTTPClient",
    platforms: [.macOS(.v14), .iOS(.v17), .tvOS(.v17), .watchOS(.v10)],
    products: [
        .library(name: "CRUDKitAsyncHTTPClient", targets: ["CRUDKitAsyncHTTPClient"])
    ],
    dependencies: [
        .package(name: "CRUDKit", path: "../.."),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        // Already in AsyncHTTPClient's graph; named so the transport can tell a tracer that records nothing.
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.3.0"),
    ],
    targets: [
        .target(
            name: "CRUDKitAsyncHTTPClient",
            dependencies: [
                .product(name: "CRUDKit", package: "CRUDKit"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ]
        ),
        // Benchmarks: api.get over this transport beside raw AsyncHTTPClient and raw URLSession, in one run.
        .executableTarget(
            name: "crudkit-ahc-benchmarks",
            dependencies: [
                "CRUDKitAsyncHTTPClient",
                .product(name: "CRUDKit", package: "CRUDKit"),
                .product(name: "CRUDKitTesting", package: "CRUDKit"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ]
        ),
        .testTarget(
            name: "CRUDKitAsyncHTTPClientTests",
            dependencies: [
                "CRUDKitAsyncHTTPClient",
                .product(name: "CRUDKitTesting", package: "CRUDKit"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
