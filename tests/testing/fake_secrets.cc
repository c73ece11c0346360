#include "testing/fake_secrets.h"

#include <random>

namespace seragen::testing {
namespace {

const std::string kUpper = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const std::string kDigits = "0123456789";
const std::string kAlnum = kUpper + "abcdefghijklmnopqrstuvwxyz" + kDigits;
const std::string kUrlSafe = kAlnum + "_-";
const std::string kBase64 = kAlnum + "+/";
const std::string kHex = "0123456789abcdef";

// The documented AWS example key id, split so that no source line holds it.
std::string AwsExampleKeyId() { return std::string("AK") + "IA" + "IOSFODNN7" + "EXAMPLE"; }

std::string PemBlock(const std::string& kind, std::uint64_t seed, const std::string& newline) {
  std::string dashes = "-----";
  std::string text = dashes + "BEGIN " + kind + "PRIVATE KEY" + dashes + newline;
  for (int line = 0; line < 6; ++line)
    text += RandomChars(seed + static_cast<std::uint64_t>(line), 64, kBase64) + newline;
  text += RandomChars(seed + 99, 20, kBase64) + "==" + newline;
  return text + dashes + "END " + kind + "PRIVATE KEY" + dashes;
}

void Add(std::vector<FakeSecret>& out, std::string rule, std::string secret, const std::string& before,
         const std::string& after) {
  std::string text = before + secret + after;
  out.push_back({std::move(rule), std::move(secret), std::move(text)});
}

void AddCloud(std::vector<FakeSecret>& v, std::uint64_t s) {
  Add(v, "aws-access-key-id", AwsExampleKeyId(), "aws_access_key_id = ", "\n");
  Add(v, "aws-access-key-id", "AKIA" + RandomChars(s + 1, 16, kUpper + kDigits), "export KEY_ID=", "\n");
  Add(v, "aws-secret-access-key", RandomChars(s + 2, 40, kBase64), "AWS_SECRET_ACCESS_KEY=\"", "\"\n");
  Add(v, "gcp-api-key", "AI" + std::string("za") + RandomChars(s + 3, 35, kUrlSafe), "const key = '", "';");
  Add(v, "gcp-service-account-key-id", RandomChars(s + 4, 40, kHex),
      "{\"type\": \"service_account\", \"private_key_id\": \"", "\", \"project_id\": \"demo\"}");
  Add(v, "gcp-oauth-client-secret", "GOCSPX" + std::string("-") + RandomChars(s + 5, 28, kUrlSafe),
      "client_secret: ", "\n");
  Add(v, "azure-account-key", RandomChars(s + 6, 86, kBase64) + "==",
      "DefaultEndpointsProtocol=https;AccountName=demo;AccountKey=", ";EndpointSuffix=core.windows.net");
  Add(v, "azure-sas-signature", RandomChars(s + 7, 43, kAlnum) + "%3D",
      "https://demo.blob.core.windows.net/c/f.txt?sv=2022-11-02&se=2030-01-01&sp=r&sig=", " 200 OK");
}

void AddVcsAndRegistries(std::vector<FakeSecret>& v, std::uint64_t s) {
  Add(v, "github-token", "gh" + std::string("p_") + RandomChars(s + 10, 36, kAlnum), "GITHUB_TOKEN=", "\n");
  Add(v, "github-fine-grained-token",
      "github" + std::string("_pat_") + RandomChars(s + 11, 22, kAlnum) + "_" + RandomChars(s + 12, 59, kAlnum),
      "git clone https://x:", "@github.com/o/r.git");
  Add(v, "gitlab-token", "gl" + std::string("pat-") + RandomChars(s + 13, 20, kUrlSafe), "PRIVATE-TOKEN: ", "\n");
  Add(v, "npm-token", "npm" + std::string("_") + RandomChars(s + 14, 36, kAlnum),
      "//registry.npmjs.org/:_authToken=", "\n");
  Add(v, "pypi-token", "pypi" + std::string("-AgEIcHlwaS5vcmc") + RandomChars(s + 15, 70, kUrlSafe),
      "password = ", "\n");
}

void AddChatAndPayments(std::vector<FakeSecret>& v, std::uint64_t s) {
  Add(v, "slack-token",
      "xo" + std::string("xb-") + RandomChars(s + 20, 12, kDigits) + "-" + RandomChars(s + 21, 24, kAlnum),
      "SLACK_BOT_TOKEN=", "\n");
  Add(v, "slack-webhook",
      "T" + RandomChars(s + 22, 8, kUpper) + "/B" + RandomChars(s + 23, 8, kUpper) + "/" +
          RandomChars(s + 24, 24, kAlnum),
      "curl -X POST https://hooks.slack" + std::string(".com/services/"), " -d @msg.json");
  Add(v, "discord-bot-token",
      "M" + RandomChars(s + 25, 23, kAlnum) + "." + RandomChars(s + 26, 6, kUrlSafe) + "." +
          RandomChars(s + 27, 27, kUrlSafe),
      "client.run('", "')");
  Add(v, "discord-webhook", RandomChars(s + 28, 18, kDigits) + "/" + RandomChars(s + 29, 68, kUrlSafe),
      "WEBHOOK = \"https://discord.com/api/webhooks/", "\"");
  Add(v, "stripe-key", "sk" + std::string("_live_") + RandomChars(s + 30, 24, kAlnum), "stripe.api_key = \"", "\"");
  Add(v, "openai-api-key", "sk" + std::string("-proj-") + RandomChars(s + 31, 64, kUrlSafe), "Authorization: Bearer ",
      "\n");
  Add(v, "anthropic-api-key", "sk" + std::string("-ant-api03-") + RandomChars(s + 32, 95, kUrlSafe),
      "x-api-key: ", "\n");
  Add(v, "huggingface-token", "hf" + std::string("_") + RandomChars(s + 33, 34, kAlnum), "HF_TOKEN=", "\n");
}

void AddStructured(std::vector<FakeSecret>& v, std::uint64_t s) {
  std::string header = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9";
  Add(v, "jwt", header + ".eyJ" + RandomChars(s + 40, 40, kUrlSafe) + "." + RandomChars(s + 41, 43, kUrlSafe),
      "Cookie: session=", "; Path=/");
  Add(v, "private-key-block", PemBlock("RSA ", s + 42, "\n"), "$ cat deploy/id_rsa\n", "\n$ ls\n");
  Add(v, "private-key-block", PemBlock("OPENSSH ", s + 50, "\n"), "", "\n");
  Add(v, "private-key-block", PemBlock("", s + 60, "\\n"), "{\"type\": \"service_account\", \"private_key\": \"",
      "\\n\", \"client_email\": \"a@b.iam.gserviceaccount.com\"}");
  Add(v, "connection-string-password", RandomChars(s + 70, 14, kAlnum),
      "DATABASE_URL=postgres://app:", "@db.internal:5432/app\n");
  Add(v, "connection-string-password", RandomChars(s + 71, 18, kAlnum),
      "client = MongoClient('mongodb+srv://reader:", "@cluster0.example.net/?retryWrites=true')");
  Add(v, "generic-assignment", RandomChars(s + 80, 24, kAlnum), "DB_PASSWORD=", "\n");
  Add(v, "generic-assignment", RandomChars(s + 81, 32, kAlnum), "    \"api_key\": \"", "\",\n");
  Add(v, "generic-assignment", RandomChars(s + 82, 20, kAlnum + "!@#%"), "secret: '", "'\n");
}

}  // namespace

std::string RandomChars(std::uint64_t seed, std::size_t n, const std::string& alphabet) {
  std::mt19937_64 gen(seed * 0x9E3779B97F4A7C15ULL + 12345);
  std::string out;
  out.reserve(n);
  for (std::size_t i = 0; i < n; ++i) out += alphabet[gen() % alphabet.size()];
  return out;
}

std::vector<FakeSecret> FakeSecrets(std::uint64_t seed) {
  std::vector<FakeSecret> v;
  std::uint64_t s = seed * 1000;
  AddCloud(v, s);
  AddVcsAndRegistries(v, s);
  AddChatAndPayments(v, s);
  AddStructured(v, s);
  return v;
}

}  // namespace seragen::testing
