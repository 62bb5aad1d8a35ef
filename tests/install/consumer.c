// SPDX-License-Identifier: MIT
/* A program using the installed libspoor through pkg-config. */
#include <stdio.h>
#include <string.h>

#include <spoor/decoder.h>
#include <spoor/error.h>
#include <spoor/te_inst.h>

int main(void)
{
	struct spoor_params p;
	struct spoor_te_inst pkt;
	struct spoor_image *img = spoor_image_new();
	static const uint8_t payload[] = { 0x32, 0x04, 0x00, 0x00, 0x02 };

	spoor_params_init(&p);
	p.iaddress_lsb_p = 0;
	p.iaddress_width_p = 64;
	if (!img || spoor_te_inst_decode(&p, payload, sizeof(payload), &pkt) < 0)
		return 1;
	printf("format %u address 0x%llx, %s\n", (unsigned)pkt.v[SPOOR_TE_F_FORMAT],
	       (unsigned long long)pkt.v[SPOOR_TE_F_ADDRESS], spoor_errstr(SPOOR_E_NO_IMAGE));
	spoor_image_free(img);
	return strcmp(spoor_errstr(0), "success") != 0;
}
