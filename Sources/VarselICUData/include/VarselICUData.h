// The ICU data a static Linux build links (icu_data.c). Nothing here is called: the data is found by its symbol.
