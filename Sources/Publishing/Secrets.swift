import Foundation
import Messages

/// A file holding a secret, as read for the configuration: contents and permission bits.
public struct SecretFile: Sendable, Equatable {
    public var contents: String
    /// `st_mode & 0o777`.
    public var permissions: Int

    public init(contents: String, permissions: Int) {
        self.contents = contents
        self.permissions = permissions
    }

    /// Reads `path` from disk. Throws a message fit for a configuration error.
    public static func read(_ path: String) throws -> SecretFile {
        let attributes: [FileAttributeKey: Any]
        do {
            attributes = try FileManager.default.attributesOfItem(atPath: path)
        } catch {
            throw SecretFileError(
                message: FileManager.default.fileExists(atPath: path) ? "cannot read \(path)" : "no such file \(path)")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw SecretFileError(message: "cannot read \(path) (permission denied?)")
        }
        let permissions = (attributes[.posixPermissions] as? NSNumber)?.intValue ?? 0
        return SecretFile(contents: String(decoding: data, as: UTF8.self), permissions: permissions & 0o777)
    }
}

/// Why a secret file could not be read.
public struct SecretFileError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public init(message: String) { self.message = message }
    public var description: String { message }
}

/// Resolves `<name>_env` / `<name>_file` configuration keys to secret values: from an environment variable, or from
/// a file (trailing newlines trimmed). A file readable by group or others is accepted with a warning. The one
/// resolver for every secret of the configuration (targets' tokens and passwords, the push listener's token).
public struct SecretResolver {
    public var environment: [String: String]
    public var readFile: (String) throws -> SecretFile
    /// One line per secret file readable by group or others.
    public var warnings: [String] = []

    public init(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        readFile: @escaping (String) throws -> SecretFile = SecretFile.read
    ) {
        self.environment = environment
        self.readFile = readFile
    }

    /// The secret `name` of `table`, or nil when neither key is present and `required` is false.
    public mutating func resolve(_ name: String, in table: ConfigTable, required: Bool) throws(ConfigurationError)
        -> String?
    {
        let envKey = name + "_env"
        let fileKey = name + "_file"
        let variable = try table.string(envKey)
        let file = try table.string(fileKey)
        switch (variable, file) {
        case (.some, .some):
            throw table.error(envKey, "give \(envKey) or \(fileKey), not both")
        case (.some(let variable), nil):
            guard let value = environment[variable]?.trimmingCharacters(in: .whitespacesAndNewlines), !value.isEmpty
            else {
                throw table.missingSecret(envKey, "environment variable \(variable) is not set or is empty")
            }
            return value
        case (nil, .some(let path)):
            let secret: SecretFile
            do { secret = try readFile(path) } catch {
                throw table.missingSecret(fileKey, "\(error)")
            }
            let value = secret.contents.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !value.isEmpty else { throw table.missingSecret(fileKey, "\(path) is empty") }
            if secret.permissions & 0o077 != 0 {
                warnings.append(
                    "\(table.path(fileKey)): \(path) is readable by group or others (mode \(String(secret.permissions, radix: 8))); run chmod 600 \(path)"
                )
            }
            return value
        case (nil, nil):
            if required {
                throw table.missing(
                    envKey, "missing: set \(envKey) (an environment variable name) or \(fileKey) (a file path)",
                    orAnyOf: [fileKey])
            }
            return nil
        }
    }
}
