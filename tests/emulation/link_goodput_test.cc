// What an emulated link's check expects a TCP stream to carry (emulation/emulate_spec.h).
#include <gtest/gtest.h>

#include "emulation/emulate_spec.h"

namespace prunex {
namespace {

TEST(EmulatedLinks, FramesAreJumboFrom100Mbits) {
  EXPECT_EQ(emulated_link_mtu(20e6), 1500);
  EXPECT_EQ(emulated_link_mtu(99.9e6), 1500);
  EXPECT_EQ(emulated_link_mtu(100e6), 9000);
}

// A full 1500-byte frame is 1514 bytes to tc (Ethernet header) and carries 1500 - 20 (IPv4) -
// 20 (TCP) - 12 (timestamps) = 1448 bytes of payload; 9000: 9014 and 8948.
TEST(EmulatedLinks, TcpPayloadShareOfTheShapedRate) {
  EXPECT_DOUBLE_EQ(tcp_goodput_fraction(1500), 1448.0 / 1514.0);
  EXPECT_DOUBLE_EQ(tcp_goodput_fraction(9000), 8948.0 / 9014.0);
  // The 20 Mbit/s links of puhti / 5000 (issue 36): 19.13 Mbit/s of payload, so the 17.4-18.6
  // measured there are 9.0-2.8% short of it, where against the rate they were 13-7% short.
  EXPECT_NEAR(20e6 * tcp_goodput_fraction(1500) / 1e6, 19.128, 1e-3);
}

}  // namespace
}  // namespace prunex
