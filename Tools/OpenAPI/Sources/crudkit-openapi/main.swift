import ArgumentParser
import CRUDKitOpenAPI
import Foundation

/// `crudkit-openapi`: CRUDKit models from an OpenAPI document.
@main
struct CRUDKitOpenAPICommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "crudkit-openapi",
        abstract: "Generate CRUDKit models from an OpenAPI 3.0 or 3.1 document.",
        subcommands: [Generate.self],
        defaultSubcommand: Generate.self
    )
}

extension GeneratorOptions.Conventions: ExpressibleByArgument {}

/// `crudkit-openapi generate openapi.yaml --output DIR`.
struct Generate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write one Swift file per resource and shared schema, plus APIDocument.swift.")

    @Argument(help: "The OpenAPI document (JSON or YAML).")
    var document: String

    @Option(name: .shortAndLong, help: "The folder to write the Swift files to (created if needed).")
    var output: String

    @Option(
        help:
            "The conventions preset: drf, rails, fastapi, vapor, laravel, jsonapi or standard (default: recognized from the document)."
    )
    var conventions: GeneratorOptions.Conventions?

    @Option(help: "Only these collections, comma-separated (people,posts).")
    var only: String?

    @Option(help: "A crudkit-openapi.yaml configuration file (the plugin's); command-line options win.")
    var config: String?

    @Flag(help: "Fail when the generator has any diagnostic.")
    var strict = false

    @Flag(help: "Declare the generated types internal instead of public.")
    var `internal` = false

    @Flag(help: "Print the names of the files it would write, and write nothing.")
    var list = false

    @Flag(help: "Remove .swift files in the output folder that this run does not write.")
    var clean = false

    mutating func run() throws {
        var options = GeneratorOptions(accessLevel: `internal` ? "internal" : "public")
        if let config {
            options = try Configuration.read(URL(fileURLWithPath: config), into: options)
        }
        if let conventions { options.conventions = conventions }
        if let only {
            options.only = only.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) }
        }
        if strict { options.strict = true }
        let data = try Data(contentsOf: URL(fileURLWithPath: document))
        let result: GenerationResult
        do {
            result = try Generator.generate(data, options: options)
        } catch let error as GeneratorError {
            FileHandle.standardError.write(Data("error: \(error)\n".utf8))
            throw ExitCode.failure
        }
        if list {
            for file in result.files { print(file.name) }
            return
        }
        for diagnostic in result.diagnostics {
            FileHandle.standardError.write(
                Data("warning: \(document)\(diagnostic.pointer): \(diagnostic.message)\n".utf8))
        }
        let folder = URL(fileURLWithPath: output)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let written = try Writer.write(result.files, to: folder, removingOthers: clean)
        print(
            "crudkit-openapi: \(result.files.count) files (\(written) changed) in \(output), conventions \(result.conventions.rawValue), \(result.diagnostics.count) diagnostic(s)"
        )
    }
}
