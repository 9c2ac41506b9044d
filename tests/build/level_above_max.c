// SPDX-License-Identifier: GPL-2.0-only
/* Build test: kpkeys_set_level(KPKEYS_LVL_MAX + 1), see cases.txt. */
#include <linux/kpkeys.h>
#include <linux/module.h>

static int __init case_init(void)
{
	kpkeys_restore_pkey_reg(kpkeys_set_level(KPKEYS_LVL_MAX + 1));
	return 0;
}
module_init(case_init);
MODULE_LICENSE("GPL");
