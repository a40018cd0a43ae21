// A program that does nothing: linked once with a DT_RPATH and once with a DT_RUNPATH for
// bundle_checks_test.sh (pack.sh's check_no_rpath).
int main() { return 0; }
