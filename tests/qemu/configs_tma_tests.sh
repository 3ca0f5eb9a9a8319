# tests/qemu/configs_tma_tests.sh — sourced by tests/qemu/run.sh (its helpers: run_test,
# expect_eq, $NB). The config the image picks where Intel's mapfile tells parts apart by
# stepping (6-55: Skylake-SP 0-4, Cascade Lake 5-F) and by native model ID (6-C5 E-cores:
# 000002H low-power Crestmont, 000003H Skymont), through -plan (the image's own lookup).

test_plan_stepping_and_native_model() {
    local spec got want=""
    got=""
    for spec in intel:6:0x55:stepping=4 intel:6:0x55:stepping=5 intel:6:0x55:stepping=15 \
                intel:6:0xc5:p:native=3 intel:6:0xc5:e:native=3 intel:6:0xc5:e:native=2; do
        got+="$spec $($NB -plan -plan_cpu "$spec" -asm nop | head -1 | sed 's|.*/configs/||')
"
    done
    want="intel:6:0x55:stepping=4 cfg_SkylakeX_common.txt
intel:6:0x55:stepping=5 cfg_CascadeLakeX_common.txt
intel:6:0x55:stepping=15 cfg_CascadeLakeX_common.txt
intel:6:0xc5:p:native=3 cfg_ArrowLakeP_LionCove_common.txt
intel:6:0xc5:e:native=3 cfg_ArrowLakeE_Skymont_common.txt
intel:6:0xc5:e:native=2 cfg_ArrowLakeLPE_Crestmont_common.txt
"
    expect_eq "config by stepping and native model ID" "$want" "$got"
}

run_test plan_stepping_and_native_model test_plan_stepping_and_native_model
