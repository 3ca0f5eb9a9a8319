# tests/qemu/secure_boot_tests.sh — signed images (-sign_key/-sign_cert),
# QEMU with Secure Boot on (-secure_boot: Debian's secboot OVMF with the
# snakeoil keys), and what happens to an image the firmware does not trust.
# Sourced by tests/qemu/run.sh, whose helpers it uses.

# A signed image boots under Secure Boot and measures exactly as an unsigned
# one does without it; the platform report says Secure Boot was on.
test_secure_boot_signed_image_measures() {
    local out rc
    out=$($NB -asm "ADD RAX, RBX; ADD RBX, RAX" -icount 4 -secure_boot -results "$TMP/sb-signed" 2>"$TMP/sb-signed.err")
    rc=$?
    expect_eq "exit status" 0 "$rc" || { cat "$TMP/sb-signed.err"; return 1; }
    expect_eq "output" "RDTSC: 32.00" "$out" || return 1
    expect_eq "secure boot lines" "platform: firmware.secure_boot = on
platform: firmware.setup_mode = no" "$(grep '^platform: firmware.s' "$TMP/sb-signed/run-0001.txt")"
}

# An unsigned image, and one signed by a key the firmware's db does not
# hold, are refused; the host says so in one line within seconds.
test_secure_boot_refuses_untrusted_images() {
    local out rc start=$SECONDS
    $NB -asm "NOP" -image "$TMP/sb-unsigned.img" 2>/dev/null || return 1
    images/qemu-run.sh "$TMP/sb-unsigned.img" "$TMP/sb-unsigned.log" --icount 4 --secure-boot 2>"$TMP/sb-unsigned.err"
    rc=$?
    expect_eq "qemu-run status for an unsigned image" 3 "$rc" || { cat "$TMP/sb-unsigned.err"; return 1; }
    grep -qx 'qemu-run: the firmware refused the image: BdsDxe: failed to load Boot0001 "UEFI Misc Device" from PciRoot(0x0)/Pci(0x1,0x0): Access Denied' \
        "$TMP/sb-unsigned.err" || { cat "$TMP/sb-unsigned.err"; return 1; }
    openssl req -new -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=not in db/" \
        -keyout "$TMP/wrong.key" -out "$TMP/wrong.pem" >/dev/null 2>&1 || return 1
    out=$($NB -asm "NOP" -icount 4 -secure_boot -sign_key "$TMP/wrong.key" -sign_cert "$TMP/wrong.pem" \
        -results "$TMP/sb-wrong" 2>"$TMP/sb-wrong.err")
    rc=$?
    expect_eq "exit status for a wrongly signed image" 3 "$rc" || { cat "$TMP/sb-wrong.err"; return 1; }
    expect_eq "stdout" "" "$out" || return 1
    grep -qxF "nanobench: the firmware refused to start the image (Secure Boot: Access Denied); sign it with -sign_key and -sign_cert, or use -secure_boot under QEMU (docs/secure-boot.md)" \
        "$TMP/sb-wrong.err" || { cat "$TMP/sb-wrong.err"; return 1; }
    ((SECONDS - start < 120)) || { echo "took $((SECONDS - start)) s: waited for a timeout"; return 1; }
}

# -image with -sign_key/-sign_cert: BOOTX64.EFI verifies with the
# certificate (sbverify) and carries the .sbat section shim reads.
test_signed_stick_image() {
    local dir=$TMP/signed-image
    mkdir -p "$dir"
    openssl req -new -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=lab key/" \
        -keyout "$dir/lab.key" -out "$dir/lab.pem" >/dev/null 2>&1 || return 1
    $NB -asm "NOP" -image "$dir/lab.img" -sign_key "$dir/lab.key" -sign_cert "$dir/lab.pem" 2>/dev/null || return 1
    mcopy -i "$dir/lab.img@@1M" ::/EFI/BOOT/BOOTX64.EFI "$dir/app.efi" || return 1
    sbverify --cert "$dir/lab.pem" "$dir/app.efi" >"$dir/verify.out" 2>&1 || { cat "$dir/verify.out"; return 1; }
    expect_eq "sbverify" "Signature verification OK" "$(cat "$dir/verify.out")" || return 1
    objcopy -O binary --only-section=.sbat "$dir/app.efi" "$dir/sbat.csv" || return 1
    expect_eq ".sbat" "sbat,1,SBAT Version,sbat,1,https://github.com/rhboot/shim/blob/main/SBAT.md
nanobench-efi,1,nanoBench-EFI,nanobench-efi,$(sed -n 's/^#define NB_VERSION "\(.*\)"$/\1/p' kernel/nb_version.h),README.md" \
        "$(tr -d '\0' <"$dir/sbat.csv")"
}

test_secure_boot_cli_errors() {
    expect_cli_error sign_key_alone "nanobench: -sign_key and -sign_cert go together (the private key and its X.509 certificate, PEM)" \
        -asm nop -sign_key /etc/hostname || return 1
    expect_cli_error sign_cert_missing "nanobench: option -sign_cert: /nonexistent.pem: no such readable file" \
        -asm nop -sign_cert /nonexistent.pem || return 1
    expect_cli_error secure_boot_image "nanobench: -secure_boot boots QEMU with Secure Boot on; for a lab machine's image use -image with -sign_key and -sign_cert" \
        -asm nop -secure_boot -image "$TMP/x.img"
}

run_test secure_boot_signed_image_measures test_secure_boot_signed_image_measures
run_test secure_boot_refuses_untrusted_images test_secure_boot_refuses_untrusted_images
run_test signed_stick_image test_signed_stick_image
run_test secure_boot_cli_errors test_secure_boot_cli_errors
