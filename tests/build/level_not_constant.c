// SPDX-License-Identifier: GPL-2.0-only
/* Build test: kpkeys_set_level() with a level known only at run time. */
#include <linux/kpkeys.h>
#include <linux/module.h>

static int level;
module_param(level, int, 0444);

static int __init case_init(void)
{
	kpkeys_restore_pkey_reg(kpkeys_set_level(level));
	return 0;
}
module_init(case_init);
MODULE_LICENSE("GPL");
