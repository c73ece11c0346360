#include "seragen/base/hash.h"

#include <catch2/catch.hpp>

namespace seragen {

TEST_CASE("SHA-256 golden values (FIPS 180-2 examples)", "[hash]") {
  CHECK(Sha256Hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(Sha256Hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(Sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

TEST_CASE("incremental SHA-256 equals one-shot", "[hash]") {
  Sha256 h;
  h.Update("ab");
  h.Update("c");
  CHECK(h.FinalHex() == Sha256Hex("abc"));
}

TEST_CASE("ContentId is length-prefixed and golden", "[hash]") {
  CHECK(ContentId({"repo", "abc"}) == "59c4b87bc0bf4f3511fa");
  CHECK(ContentId({"ab", "c"}) != ContentId({"a", "bc"}));
  CHECK(ContentId({"x"}, 8).size() == 8);
  CHECK(ContentId({"x"}, 100).size() == 64);
}

TEST_CASE("StableHash64 is the big-endian SHA-256 prefix", "[hash]") {
  // sha256("abc") starts with ba7816bf8f01cfea
  CHECK(StableHash64("abc") == 0xba7816bf8f01cfeaULL);
}

}  // namespace seragen
