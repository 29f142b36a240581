// The translation unit that builds a precompiled header of the tests (one per set of Qt modules,
// tests/CMakeLists.txt, lacuna_test_pch); it has no code of its own.
