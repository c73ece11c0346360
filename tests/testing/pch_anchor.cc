// Anchor source for the seragen_test_pch target (see CMakeLists.txt).
