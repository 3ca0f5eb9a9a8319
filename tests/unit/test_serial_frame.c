/*
 * test_serial_frame.c — the frames that make serial-cable damage visible:
 * CRC-16/CCITT-FALSE check value, round trip, and detection of flipped bits,
 * dropped characters and forged sequence numbers.
 */
#include "nb_test.h"
#include "serial_frame.h"

#include <string.h>

NB_TEST(serial_crc16_check_value)
{
    /* The catalogue check value of CRC-16/CCITT-FALSE for "123456789". */
    CHECK_EQ_U64(crc16_ccitt(CRC16_INIT, "123456789", 9), 0x29B1);
}

NB_TEST(serial_frame_round_trip_and_damage)
{
    const char *text = "RDTSC: 32.00";
    char line[64];
    size_t n = strlen(text);
    memcpy(line, text, n);
    size_t f = serial_frame(line + n, text, n, 10007);
    CHECK_EQ_INT(f, SERIAL_FRAME_MAX - 1);
    CHECK(strncmp(line + n, "\t|0007 ", 7) == 0);
    size_t text_len;
    unsigned seq;
    bool ok;
    REQUIRE(serial_unframe(line, n + f, &text_len, &seq, &ok));
    CHECK(ok);
    CHECK_EQ_INT(text_len, n);
    CHECK_EQ_INT(seq, 7);

    char damaged[64];
    memcpy(damaged, line, n + f);
    damaged[8] ^= 0x04; /* one flipped bit: "32.00" -> "36.00" */
    REQUIRE(serial_unframe(damaged, n + f, &text_len, &seq, &ok));
    CHECK(!ok);
    memcpy(damaged, line, n + f);
    memmove(damaged + 3, damaged + 4, n + f - 4); /* a dropped character */
    REQUIRE(serial_unframe(damaged, n + f - 1, &text_len, &seq, &ok));
    CHECK(!ok);
    memcpy(damaged, line, n + f);
    damaged[n + 5] = '8'; /* a changed sequence number */
    REQUIRE(serial_unframe(damaged, n + f, &text_len, &seq, &ok));
    CHECK(!ok);
    CHECK(!serial_unframe("BdsDxe: loading Boot0001", 24, &text_len, &seq, &ok)); /* firmware text */
}
