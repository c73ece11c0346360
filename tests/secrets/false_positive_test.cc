// Near-misses: strings that look random or sit next to secret-sounding names
// but are not credentials. The scanner may flag at most 1 % of them.
#include <catch2/catch.hpp>
#include <iterator>

#include "secrets/shipped_scanner.h"
#include "seragen/base/hash.h"
#include "testing/fake_secrets.h"

namespace seragen::secrets {
namespace {

using seragen::testing::RandomChars;

const std::string kHex = "0123456789abcdef";
const std::string kBase64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::string Uuid(std::uint64_t seed) {
  std::string h = RandomChars(seed, 32, kHex);
  return h.substr(0, 8) + "-" + h.substr(8, 4) + "-4" + h.substr(13, 3) + "-a" + h.substr(17, 3) + "-" + h.substr(20);
}

void AddIdentifiersAndDigests(std::vector<std::string>& v) {
  for (std::uint64_t i = 0; i < 30; ++i) {
    v.push_back("request_id = \"" + Uuid(i) + "\"");
    v.push_back("commit " + Sha256Hex(std::to_string(i)).substr(0, 40) + "\nAuthor: A <a@example.com>");
    v.push_back("sha256:" + Sha256Hex("layer" + std::to_string(i)) + "  blobs/layer.tar");
    v.push_back("token_count = " + std::to_string(i * 7919) + "  # tokens in the prompt");
  }
  for (std::uint64_t i = 0; i < 10; ++i) {
    v.push_back("![diagram](data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAA" + RandomChars(i + 500, 600, kBase64) +
                "=)");
    v.push_back("integrity=\"sha512-" + RandomChars(i + 600, 86, kBase64) + "==\"");
    v.push_back("git checkout " + Sha256Hex("b" + std::to_string(i)).substr(0, 12) + " && make");
  }
}

// Prose about credentials, and code and config that name them without holding one.
const char* const kFixedNearMisses[] = {
    "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt.",
    "Ut enim ad minim veniam, quis nostrud exercitation ullamco laboris nisi ut aliquip ex ea commodo.",
    "Duis aute irure dolor in reprehenderit in voluptate velit esse cillum dolore eu fugiat nulla.",
    "Excepteur sint occaecat cupidatat non proident, sunt in culpa qui officia deserunt mollit anim.",
    "The password must be at least 12 characters long and include a digit.",
    "Set the token in your environment; never commit it.",
    "Rotate the secret key every 90 days (see SECURITY.md).",
    "The API key is read from API_KEY at start-up.",
    "Risk-free refactor: skip-list nodes are renamed, sk-learn is untouched.",
    "xoxo, the team",
    "password = \"password\"",
    "password = getpass.getpass()",
    "token = get_token(user_id)",
    "api_key = os.environ[\"API_KEY\"]",
    "secret = None",
    "PASSWORD = \"changeme\"",
    "api_key: ${API_KEY}",
    "token = self._token_cache.get(user_id)",
    "password_hash = bcrypt.hashpw(password, salt)",
    "secret_key = settings.SECRET_KEY",
    "access_key = config.get('aws', 'access_key_id')",
    "def rotate_secret(secret_id: str) -> None:",
    "TOKEN_EXPIRY_SECONDS = 3600",
    "assert token == 'test-token'",
    "auth_token: \"<your token here>\"",
    "password: \"********\"",
    "export GITHUB_TOKEN=$(gh auth token)",
    "client_secret = load_client_secret_from_vault()",
    "private_key = serialization.load_pem_private_key(data, password=None)",
    "postgres://localhost:5432/app",
    "mongodb://db.internal:27017/test",
    "https://example.com:8443/path",
    "redis://cache:6379/0",
    "api_key = 'test'",
    "token = ''",
    "-----BEGIN PUBLIC KEY-----",
    "-----BEGIN CERTIFICATE-----\nMIIB",
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFakeFakeFake user@host",
    "eyJ is how base64 of '{\"' starts",
    "AKIA is the prefix of AWS access key ids",
};

void AddSmallThings(std::vector<std::string>& v) {
  for (int i = 0; i < 20; ++i) {
    v.push_back("version " + std::to_string(i) + "." + std::to_string(i * 3 % 17) + "." + std::to_string(i * 7 % 11) +
                "-rc." + std::to_string(i));
    v.push_back("src/module_" + std::to_string(i) + "/handlers/user_session_token_store_" + std::to_string(i) + ".py");
    v.push_back("color: #" + RandomChars(static_cast<std::uint64_t>(i) + 700, 6, kHex) + "; background: #fff;");
    v.push_back("def test_refresh_token_rotation_" + std::to_string(i) + "(client, fake_clock):");
    v.push_back("FIXTURE_" + std::to_string(i) + " = \"fixture-value-" + std::to_string(i) + "\"");
  }
}

std::vector<std::string> NearMisses() {
  std::vector<std::string> v;
  AddIdentifiersAndDigests(v);
  v.insert(v.end(), std::begin(kFixedNearMisses), std::end(kFixedNearMisses));
  AddSmallThings(v);
  return v;
}

TEST_CASE("near-misses: at most 1 percent of at least 200 strings flagged", "[secrets]") {
  auto scanner = testing::ShippedScanner();
  std::vector<std::string> strings = NearMisses();
  REQUIRE(strings.size() >= 200);
  std::size_t flagged = 0;
  for (const std::string& s : strings) {
    std::string_view view = s;
    RowScan scan = scanner.ScanRow({&view, 1});
    if (!scan.clean()) {
      ++flagged;
      UNSCOPED_INFO("flagged by " << scan.hits[0].rule << ": " << s);
    }
  }
  INFO(flagged << " of " << strings.size() << " flagged");
  CHECK(flagged * 100 <= strings.size());
}

}  // namespace
}  // namespace seragen::secrets
