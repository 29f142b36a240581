// The translation unit that builds a test folder's precompiled header (tests/CMakeLists.txt,
// lacuna_test_pch); it has no code of its own.
