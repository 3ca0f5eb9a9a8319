/*
 * mica_category.c — names of the XED instruction categories (mica_record.h).
 */
#include "mica_record.h"

#include <string.h>

#define MICA_CAT_NAME_(name) #name,
static const char *const category_names[MICA_N_CATEGORIES] = { MICA_CATEGORIES(MICA_CAT_NAME_) };

const char *mica_category_name(unsigned category)
{
    return category < MICA_N_CATEGORIES ? category_names[category] : NULL;
}

int mica_category_from_name(const char *name)
{
    for (unsigned i = 0; i < MICA_N_CATEGORIES; i++)
        if (strcmp(category_names[i], name) == 0)
            return (int)i;
    return -1;
}
